package tests

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/brook-io/brook/client-go/brook"
	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

// staticMember is a group member (static with an instance id) polling on its
// own goroutine, committing after each batch and when its partitions are
// revoked, recording its rebalance callbacks and how often it read each value.
type staticMember struct {
	c      *brook.Consumer
	stop   context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	events []string
	owned  []brook.TopicPartition
	read   map[string]int
	err    error
}

func staticStart(t *testing.T, group, topic, instanceID string, session time.Duration) *staticMember {
	m := &staticMember{done: make(chan struct{}), read: map[string]int{}}
	opts := []brook.ConsumerOption{brook.WithBroker(sharedBroker.Addr()), brook.WithGroup(group),
		brook.WithTopics(topic), brook.WithResetPosition(brook.Earliest), brook.WithSessionTimeout(session),
		brook.WithFetchMaxWait(200 * time.Millisecond), brook.WithAutoCommit(false),
		brook.WithOnAssigned(func(_ context.Context, tps []brook.TopicPartition) {
			m.note(tps, "assigned")
		}),
		brook.WithOnRevoked(func(ctx context.Context, tps []brook.TopicPartition) {
			m.note(nil, fmt.Sprint("revoked ", noticeSorted(tps)))
			if err := m.c.CommitSync(ctx); err != nil {
				m.fail(err)
			}
		}),
		brook.WithOnLost(func(_ context.Context, tps []brook.TopicPartition) {
			m.note(nil, fmt.Sprint("lost ", noticeSorted(tps)))
		})}
	if instanceID != "" {
		opts = append(opts, brook.WithGroupInstanceID(instanceID))
	}
	m.c = consumerNew(t, opts...)
	ctx, cancel := context.WithCancel(context.Background())
	m.stop = cancel
	go func() {
		defer close(m.done)
		for ctx.Err() == nil {
			records, err := m.c.Poll(ctx)
			if err != nil {
				if ctx.Err() == nil {
					m.fail(err)
				}
				return
			}
			m.mu.Lock()
			for _, r := range records {
				m.read[string(r.Value)]++
			}
			m.mu.Unlock()
			if err := m.c.CommitSync(ctx); err != nil && ctx.Err() == nil {
				m.fail(err)
				return
			}
		}
	}()
	t.Cleanup(m.halt)
	return m
}

// note records a callback; "assigned" also sets the partitions owned.
func (m *staticMember) note(tps []brook.TopicPartition, event string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if event == "assigned" {
		m.owned = noticeSorted(tps)
		event = fmt.Sprint("assigned ", m.owned)
	} else {
		m.owned = nil
	}
	m.events = append(m.events, event)
}

func (m *staticMember) fail(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err == nil {
		m.err = err
	}
}

// halt stops the poll loop.
func (m *staticMember) halt() {
	m.stop()
	<-m.done
}

// close stops the poll loop and closes the consumer: a static member does not leave.
func (m *staticMember) close(t *testing.T) {
	t.Helper()
	m.halt()
	if err := m.c.Close(consumerCtx(t, 20*time.Second)); err != nil {
		t.Fatal(err)
	}
	m.check(t)
}

func (m *staticMember) check(t *testing.T) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		t.Fatalf("poll loop failed: %v", m.err)
	}
}

func (m *staticMember) state() (owned []brook.TopicPartition, events []string, read map[string]int, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.owned), slices.Clone(m.events), maps.Clone(m.read), m.err
}

func (m *staticMember) readCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, c := range m.read {
		n += c
	}
	return n
}

func staticDescribe(t *testing.T, group string) *brookv1.GroupDescription {
	t.Helper()
	var d *brookv1.DescribeGroupResponse
	var err error
	sharedBroker.withRawConn(t, func(cc *grpc.ClientConn) {
		d, err = brookv1.NewGroupServiceClient(cc).DescribeGroup(consumerCtx(t, 10*time.Second),
			&brookv1.DescribeGroupRequest{Group: group})
	})
	if err != nil {
		t.Fatal(err)
	}
	return d.GetGroup()
}

func staticInstanceIDs(g *brookv1.GroupDescription) []string {
	var ids []string
	for _, m := range g.GetMembers() {
		ids = append(ids, m.GetInstanceId())
	}
	slices.Sort(ids)
	return ids
}

func staticProduce(t *testing.T, topic, tag string) []string {
	var values []string
	for p := int32(0); p < 4; p++ {
		prefix := fmt.Sprintf("%s-%d-", tag, p)
		consumerProduce(t, sharedBroker, topic, p, 20, prefix)
		for i := 0; i < 20; i++ {
			values = append(values, fmt.Sprintf("%s%d", prefix, i))
		}
	}
	return values
}

// A static member that restarts within its session gets its partitions back
// without a rebalance: the other member's callbacks do not run, the
// generation stays, and with commits every record is read once.
func TestConsumerStaticMemberRestartsWithoutARebalance(t *testing.T) {
	topic := sharedBroker.createTopic(t, 4, nil)
	group := consumerGroupName(t)
	expected := staticProduce(t, topic, "first")
	// A long session: the restart below must come within it, however slow the machine.
	dynamic := staticStart(t, group, topic, "", time.Minute)
	first := staticStart(t, group, topic, "worker-1", time.Minute)
	consumerAwait(t, 60*time.Second, "the two share the partitions", func() bool {
		d, _, _, _ := dynamic.state()
		f, _, _, _ := first.state()
		return len(d) == 2 && len(f) == 2
	})
	consumerAwait(t, 30*time.Second, "the first records read", func() bool {
		return dynamic.readCount()+first.readCount() >= len(expected)
	})
	before := staticDescribe(t, group)
	if got := staticInstanceIDs(before); !slices.Equal(got, []string{"", "worker-1"}) {
		t.Fatalf("instance ids %q, want a dynamic member and worker-1", got)
	}
	_, dynamicEvents, _, _ := dynamic.state()
	staticOwned, _, _, _ := first.state()

	first.close(t) // commits in WithOnRevoked; a static member does not leave
	if n := len(staticDescribe(t, group).GetMembers()); n != 2 {
		t.Fatalf("%d members after the static one closed, want 2: it stays until its session ends", n)
	}
	expected = append(expected, staticProduce(t, topic, "second")...)

	restarted := staticStart(t, group, topic, "worker-1", time.Minute)
	consumerAwait(t, 30*time.Second, "the restarted member has partitions", func() bool {
		o, _, _, _ := restarted.state()
		return len(o) > 0
	})
	if o, _, _, _ := restarted.state(); !slices.Equal(o, staticOwned) {
		t.Fatalf("restarted member got %v, want the same partitions %v", o, staticOwned)
	}
	consumerAwait(t, 30*time.Second, "every record read", func() bool {
		return dynamic.readCount()+first.readCount()+restarted.readCount() >= len(expected)
	})
	after := staticDescribe(t, group)
	if after.GetGeneration() != before.GetGeneration() {
		t.Fatalf("generation %d, was %d: a rebalance happened", after.GetGeneration(), before.GetGeneration())
	}
	if _, e, _, _ := dynamic.state(); !slices.Equal(e, dynamicEvents) {
		t.Fatalf("the other member's callbacks ran: %q, were %q", e, dynamicEvents)
	}
	restarted.close(t)
	dynamic.close(t)

	counts := map[string]int{}
	for _, m := range []*staticMember{dynamic, first, restarted} {
		_, _, read, _ := m.state()
		for v, n := range read {
			counts[v] += n
		}
	}
	for _, v := range expected {
		if counts[v] != 1 {
			t.Errorf("%s read %d times, want once", v, counts[v])
		}
	}
	if len(counts) != len(expected) {
		t.Fatalf("%d distinct values read, want %d", len(counts), len(expected))
	}
}

// Two live consumers with one instance id: the newer takes the older's place
// and the older's Poll fails with ErrMemberReplaced, for good.
func TestConsumerStaticMemberIsFencedByANewerOneWithTheSameInstanceID(t *testing.T) {
	topic := sharedBroker.createTopic(t, 4, nil)
	group := consumerGroupName(t)
	staticProduce(t, topic, "first")
	older := staticStart(t, group, topic, "worker-1", 30*time.Second)
	consumerAwait(t, 30*time.Second, "the older one owns every partition", func() bool {
		o, _, _, _ := older.state()
		return len(o) == 4
	})
	newer := staticStart(t, group, topic, "worker-1", 30*time.Second)
	consumerAwait(t, 30*time.Second, "the newer one owns every partition", func() bool {
		o, _, _, _ := newer.state()
		return len(o) == 4
	})
	consumerAwait(t, 30*time.Second, "the older one's loop failed", func() bool {
		_, _, _, err := older.state()
		return err != nil
	})
	// Its Poll or its CommitSync, whichever met the fence first.
	if _, _, _, err := older.state(); !errors.Is(err, brook.ErrMemberReplaced) {
		t.Fatalf("older's loop failed with %v, want ErrMemberReplaced", err)
	}
	if _, err := older.c.Poll(consumerCtx(t, time.Second)); !errors.Is(err, brook.ErrMemberReplaced) {
		t.Fatalf("older's next Poll: %v, want ErrMemberReplaced (for good)", err)
	}
	_, events, _, _ := older.state()
	if last := events[len(events)-1]; last != fmt.Sprint("lost ", noticeAll(topic)) {
		t.Fatalf("older's last callback %q, want its partitions lost", last)
	}

	second := staticProduce(t, topic, "second")
	consumerAwait(t, 30*time.Second, "the newer one reads on", func() bool {
		_, _, read, _ := newer.state()
		for _, v := range second {
			if read[v] == 0 {
				return false
			}
		}
		return true
	})
	g := staticDescribe(t, group)
	if len(g.GetMembers()) != 1 || g.GetMembers()[0].GetMemberId() != newer.c.GroupMetadata().MemberID {
		t.Fatalf("members %v, want the newer one alone", g.GetMembers())
	}
	newer.check(t)
}

// A static member whose heartbeats stop (closed: it does not leave) keeps its
// partitions until its session times out; then the other member gets them.
func TestConsumerStaticMemberLosesItsPartitionsAtItsSessionTimeout(t *testing.T) {
	topic := sharedBroker.createTopic(t, 4, nil)
	group := consumerGroupName(t)
	dynamic := staticStart(t, group, topic, "", 30*time.Second)
	gone := staticStart(t, group, topic, "worker-1", 8*time.Second)
	consumerAwait(t, 60*time.Second, "the two share the partitions", func() bool {
		d, _, _, _ := dynamic.state()
		g, _, _, _ := gone.state()
		return len(d) == 2 && len(g) == 2
	})
	had, _, _, _ := dynamic.state()
	gone.close(t)
	if got := staticInstanceIDs(staticDescribe(t, group)); !slices.Contains(got, "worker-1") {
		t.Fatalf("instance ids %q right after close: the static member must stay until its session ends", got)
	}

	consumerAwait(t, 60*time.Second, "the other member gets every partition", func() bool {
		d, _, _, _ := dynamic.state()
		return len(d) == 4
	})
	_, events, _, _ := dynamic.state()
	revoked := slices.Index(events, fmt.Sprint("revoked ", had))
	if revoked < 0 || !slices.Contains(events[revoked:], fmt.Sprint("assigned ", noticeAll(topic))) {
		t.Fatalf("the other member's callbacks %q: want its partitions revoked, then all of them assigned", events)
	}
	if got := staticInstanceIDs(staticDescribe(t, group)); !slices.Equal(got, []string{""}) {
		t.Fatalf("instance ids %q, want the dynamic member alone", got)
	}
	dynamic.check(t)
}

// An instance id that breaks the group-name rule: the option is refused, and
// the broker answers INVALID_ARGUMENT saying what was wrong.
func TestConsumerStaticMemberBadInstanceIDIsRefused(t *testing.T) {
	_, err := brook.NewConsumer(brook.WithBroker(sharedBroker.Addr()), brook.WithGroup("g"), brook.WithTopics("t"),
		brook.WithGroupInstanceID("has space"))
	if err == nil {
		t.Fatal("NewConsumer accepted instance id \"has space\"")
	}
	sharedBroker.withRawConn(t, func(cc *grpc.ClientConn) {
		_, err = brookv1.NewGroupServiceClient(cc).JoinGroup(consumerCtx(t, 10*time.Second),
			&brookv1.JoinGroupRequest{Group: consumerGroupName(t), Topics: []string{"any"}, InstanceId: "has space"})
	})
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("JoinGroup with instance_id \"has space\": %v, want InvalidArgument", err)
	}
	if msg := status.Convert(err).Message(); !(strings.Contains(msg, "instance_id") && strings.Contains(msg, "has space")) {
		t.Fatalf("message %q does not say what was wrong", msg)
	}
}
