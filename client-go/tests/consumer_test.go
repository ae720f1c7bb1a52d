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
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/brook-io/brook/client-go/brook"
	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

// A member alone gets every partition and reads everything produced, each
// record once and in order per partition; Close commits what it read.
func TestConsumerSubscribeReadsEverything(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 3, nil)
	for p := range int32(3) {
		consumerProduce(t, b, topic, p, 30, fmt.Sprintf("p%d-", p))
	}
	group := consumerGroupName(t)
	var assigned []brook.TopicPartition
	c, err := brook.NewConsumer(brook.WithBroker(b.Addr()), brook.WithGroup(group), brook.WithTopics(topic),
		brook.WithResetPosition(brook.Earliest), brook.WithMaxPollRecords(7), brook.WithSessionTimeout(6*time.Second),
		brook.WithOnAssigned(func(_ context.Context, tps []brook.TopicPartition) { assigned = tps }))
	if err != nil {
		t.Fatal(err)
	}
	records := consumerPollN(t, c, 90, 30*time.Second)
	if len(records) != 90 {
		t.Fatalf("%d records, want 90", len(records))
	}
	for tp, offsets := range consumerOffsets(records) {
		if !slices.Equal(offsets, consumerRange(0, 30)) {
			t.Errorf("%v: offsets %v", tp, offsets)
		}
	}
	for _, r := range records {
		if want := fmt.Sprintf("p%d-%d", r.Partition, r.Offset); string(r.Value) != want || r.Topic != topic {
			t.Errorf("record %s/%d@%d = %q, want %q", r.Topic, r.Partition, r.Offset, r.Value, want)
		}
	}
	if len(assigned) != 3 || !slices.Equal(c.Assignment(), assigned) {
		t.Errorf("assigned %v, assignment %v", assigned, c.Assignment())
	}
	if md := c.GroupMetadata(); md.Group != group || md.MemberID == "" || md.Generation < 1 {
		t.Errorf("metadata %+v", md)
	}
	if err := c.Close(consumerCtx(t, 20*time.Second)); err != nil {
		t.Fatal(err)
	}

	reader := consumerNew(t, brook.WithBroker(b.Addr()), brook.WithGroup(group))
	committed, err := reader.Committed(consumerCtx(t, 20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	want := map[brook.TopicPartition]int64{{Topic: topic, Partition: 0}: 30, {Topic: topic, Partition: 1}: 30, {Topic: topic, Partition: 2}: 30}
	if !maps.Equal(committed, want) {
		t.Errorf("committed at close %v, want %v", committed, want)
	}
}

// consumerMember is one member of a group polling on its own goroutine.
type consumerMember struct {
	name string
	c    *brook.Consumer

	mu       sync.Mutex
	records  []*brook.Record
	events   []string
	assigned []brook.TopicPartition
	// revokes: per revoke, the positions it committed and what the group then had.
	revokes []consumerRevoke
	failure error
}

type consumerRevoke struct {
	partitions []brook.TopicPartition
	positions  map[brook.TopicPartition]int64
	committed  map[brook.TopicPartition]int64
	err        error
}

func consumerNewMember(t *testing.T, name, group, topic string) *consumerMember {
	m := &consumerMember{name: name}
	m.c = consumerNew(t, brook.WithBroker(sharedBroker.Addr()), brook.WithGroup(group), brook.WithTopics(topic),
		brook.WithClientID(name), brook.WithResetPosition(brook.Earliest), brook.WithAutoCommit(false),
		brook.WithSessionTimeout(6*time.Second), brook.WithRebalanceTimeout(20*time.Second),
		brook.WithMaxPollRecords(5), brook.WithFetchMaxWait(100*time.Millisecond),
		brook.WithOnAssigned(func(_ context.Context, tps []brook.TopicPartition) {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.assigned = tps
			m.events = append(m.events, fmt.Sprintf("assigned %d", len(tps)))
		}),
		brook.WithOnRevoked(func(ctx context.Context, tps []brook.TopicPartition) {
			// Still the owner in the current generation: this commit is stored.
			rv := consumerRevoke{partitions: tps, positions: map[brook.TopicPartition]int64{}}
			for _, tp := range tps {
				pos, err := m.c.Position(ctx, tp)
				if err != nil {
					rv.err = err
				}
				rv.positions[tp] = pos
			}
			if err := m.c.CommitSync(ctx); err != nil && rv.err == nil {
				rv.err = err
			}
			committed, err := m.c.Committed(ctx, tps...)
			if err != nil && rv.err == nil {
				rv.err = err
			}
			rv.committed = committed
			m.mu.Lock()
			defer m.mu.Unlock()
			m.revokes = append(m.revokes, rv)
			m.events = append(m.events, fmt.Sprintf("revoked %d", len(tps)))
		}))
	return m
}

// loop polls until ctx ends, committing after each batch.
func (m *consumerMember) loop(ctx context.Context) {
	for ctx.Err() == nil {
		pollCtx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		batch, err := m.c.Poll(pollCtx)
		cancel()
		if err != nil {
			if ctx.Err() == nil && !consumerIsTimeout(err) {
				m.mu.Lock()
				m.failure = err
				m.mu.Unlock()
				return
			}
			continue
		}
		m.mu.Lock()
		m.records = append(m.records, batch...)
		m.mu.Unlock()
		// Not ctx: the batch read last before the test stops the loop is committed too.
		commitCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		err = m.c.CommitSync(commitCtx)
		cancel()
		if err != nil {
			m.mu.Lock()
			m.events = append(m.events, "commit failed: "+err.Error())
			m.mu.Unlock()
		}
	}
}

// Two members split the partitions: the second one's join makes the first
// revoke (committing in its callback, which the group then has) and join
// again; the second starts each partition where the first committed, so no
// record is lost or read twice.
func TestConsumerRebalanceMovesPartitions(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 4, nil)
	for p := range int32(4) {
		consumerProduce(t, b, topic, p, 25, "")
	}
	group := consumerGroupName(t)
	a := consumerNewMember(t, "member-a", group, topic)
	first := consumerPollN(t, a.c, 20, 30*time.Second)
	a.mu.Lock()
	a.records = append(a.records, first...)
	a.mu.Unlock()
	if n := len(a.c.Assignment()); n != 4 {
		t.Fatalf("a alone has %d partitions, want 4", n)
	}
	// a stops fetching, so that records are left for b when the partitions move.
	if err := a.c.Pause(); err != nil {
		t.Fatal(err)
	}

	bm := consumerNewMember(t, "member-b", group, topic)
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, m := range []*consumerMember{a, bm} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.loop(ctx)
		}()
	}
	seen := func() int {
		distinct := map[string]bool{}
		for _, m := range []*consumerMember{a, bm} {
			m.mu.Lock()
			for _, r := range m.records {
				distinct[fmt.Sprintf("%d@%d", r.Partition, r.Offset)] = true
			}
			m.mu.Unlock()
		}
		return len(distinct)
	}
	deadline := time.Now().Add(40 * time.Second)
	for seen() < 100 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	wg.Wait()

	for _, m := range []*consumerMember{a, bm} {
		if m.failure != nil {
			t.Errorf("%s: poll failed: %v", m.name, m.failure)
		}
		t.Logf("%s: %d records, events %v", m.name, len(m.records), m.events)
	}
	count := map[string]int{}
	for _, m := range []*consumerMember{a, bm} {
		for _, r := range m.records {
			count[fmt.Sprintf("%d@%d", r.Partition, r.Offset)]++
		}
	}
	if len(count) != 100 {
		t.Errorf("%d distinct records read, want 100", len(count))
	}
	for k, n := range count {
		if n != 1 {
			t.Errorf("record %s read %d times", k, n)
		}
	}
	if len(a.revokes) != 1 {
		t.Fatalf("a revoked %d times, want once: %v", len(a.revokes), a.events)
	}
	rv := a.revokes[0]
	if rv.err != nil || len(rv.partitions) != 4 {
		t.Fatalf("a's revoke: %d partitions, error %v", len(rv.partitions), rv.err)
	}
	if !maps.Equal(rv.positions, rv.committed) {
		t.Errorf("the commit in the revoke callback was not stored: positions %v, committed %v", rv.positions, rv.committed)
	}
	if len(a.assigned) != 2 || len(bm.assigned) != 2 {
		t.Fatalf("after the rebalance a has %v, b has %v; want 2 each", a.assigned, bm.assigned)
	}
	if slices.ContainsFunc(a.assigned, func(tp brook.TopicPartition) bool { return slices.Contains(bm.assigned, tp) }) {
		t.Errorf("a %v and b %v share a partition", a.assigned, bm.assigned)
	}
	// b started each of its partitions where a's revoke commit left it.
	firstOffset := map[brook.TopicPartition]int64{}
	for _, r := range bm.records {
		tp := brook.TopicPartition{Topic: r.Topic, Partition: r.Partition}
		if _, ok := firstOffset[tp]; !ok {
			firstOffset[tp] = r.Offset
		}
	}
	for _, tp := range bm.assigned {
		if got, ok := firstOffset[tp]; ok && got != rv.committed[tp] {
			t.Errorf("b started %v at %d, a committed %d", tp, got, rv.committed[tp])
		}
	}
	committed, err := a.c.Committed(consumerCtx(t, 20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	for p := range int32(4) {
		if got := committed[brook.TopicPartition{Topic: topic, Partition: p}]; got != 25 {
			t.Errorf("partition %d committed at %d, want 25", p, got)
		}
	}
}

// Commits store the next offset to read; Committed reads them back; an
// assigned partition starts at the group's commit; refused commits give the
// partition's error; async commits report on a later call; Close commits.
func TestConsumerCommitAndCommittedRoundTrip(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 2, nil)
	consumerProduce(t, b, topic, 0, 10, "")
	consumerProduce(t, b, topic, 1, 4, "")
	p0, p1 := brook.TopicPartition{Topic: topic, Partition: 0}, brook.TopicPartition{Topic: topic, Partition: 1}
	group := consumerGroupName(t)
	ctx := consumerCtx(t, 40*time.Second)

	// With a group and Assign: commits from outside the group; auto commit on by default.
	c := consumerNew(t, brook.WithBroker(b.Addr()), brook.WithGroup(group), brook.WithResetPosition(brook.Earliest))
	if got, err := c.Committed(ctx); err != nil || len(got) != 0 {
		t.Fatalf("a group never used has committed %v, %v", got, err)
	}
	if err := c.Assign(p0, p1); err != nil {
		t.Fatal(err)
	}
	if err := c.CommitOffsets(ctx, map[brook.TopicPartition]int64{p0: 3}); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Committed(ctx, p0, p1); err != nil || !maps.Equal(got, map[brook.TopicPartition]int64{p0: 3}) {
		t.Fatalf("committed %v, %v", got, err)
	}
	for tp, want := range map[brook.TopicPartition]int64{p0: 3, p1: 0} {
		if got, err := c.Position(ctx, tp); err != nil || got != want {
			t.Errorf("position of %v: %d, %v; want %d", tp, got, err, want)
		}
	}
	records := consumerPollN(t, c, 11, 20*time.Second)
	offsets := consumerOffsets(records)
	if !slices.Equal(offsets[p0], consumerRange(3, 10)) || !slices.Equal(offsets[p1], consumerRange(0, 4)) {
		t.Fatalf("read %v", offsets)
	}
	if err := c.CommitRecords(ctx, records[:2]...); err != nil {
		t.Fatal(err)
	}
	wantAfterRecords := map[brook.TopicPartition]int64{}
	for _, r := range records[:2] {
		tp := brook.TopicPartition{Topic: r.Topic, Partition: r.Partition}
		wantAfterRecords[tp] = max(wantAfterRecords[tp], r.Offset+1)
	}
	if got, err := c.Committed(ctx, p0, p1); err != nil || got[p0] != max(3, wantAfterRecords[p0]) {
		t.Errorf("after CommitRecords: %v, %v (want %v merged over p0@3)", got, err, wantAfterRecords)
	}

	// Async: the callback runs inside a later call on this side.
	var mu sync.Mutex
	var asyncDone []string
	c.CommitAsync(nil, func(offsets map[brook.TopicPartition]int64, err error) {
		mu.Lock()
		defer mu.Unlock()
		asyncDone = append(asyncDone, fmt.Sprintf("%v %v", offsets, err))
	})
	consumerAwait(t, 10*time.Second, "the async commit's callback", func() bool {
		_ = c.CommitOffsets(ctx, nil) // nothing to commit: runs the callbacks of async commits that ended
		mu.Lock()
		defer mu.Unlock()
		return len(asyncDone) > 0
	})
	if want := fmt.Sprintf("%v <nil>", map[brook.TopicPartition]int64{p0: 10, p1: 4}); asyncDone[0] != want {
		t.Errorf("async callback got %q, want %q", asyncDone[0], want)
	}
	if got, err := c.Committed(ctx, p0, p1); err != nil || !maps.Equal(got, map[brook.TopicPartition]int64{p0: 10, p1: 4}) {
		t.Errorf("after the async commit: %v, %v", got, err)
	}

	// Refusals name the partition and match the broker's code.
	err := c.CommitOffsets(ctx, map[brook.TopicPartition]int64{p0: 1000})
	var be *brook.BrokerError
	if !errors.Is(err, brook.ErrOffsetOutOfRange) || !errors.As(err, &be) || be.Topic != topic || be.Partition != 0 {
		t.Errorf("commit beyond the end gave %v", err)
	}
	missing := brook.TopicPartition{Topic: "go-no-such-topic-for-commit", Partition: 0}
	if err := c.CommitOffsets(ctx, map[brook.TopicPartition]int64{missing: 0}); !errors.Is(err, brook.ErrUnknownTopic) {
		t.Errorf("commit to an unknown topic gave %v", err)
	}

	// Close commits the positions (auto commit with a group).
	if err := c.Seek(p0, 6); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	reader := consumerNew(t, brook.WithBroker(b.Addr()), brook.WithGroup(group))
	if got, err := reader.Committed(ctx, p0, p1); err != nil || !maps.Equal(got, map[brook.TopicPartition]int64{p0: 6, p1: 4}) {
		t.Errorf("committed by Close: %v, %v", got, err)
	}
}

// Seek, SeekTo, SeekToBeginning and SeekToEnd move positions; Position and
// ListOffsets look offsets up.
func TestConsumerSeek(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 1, nil)
	consumerProduce(t, b, topic, 0, 10, "")
	tp := brook.TopicPartition{Topic: topic, Partition: 0}
	ctx := consumerCtx(t, 40*time.Second)
	c := consumerNew(t, brook.WithBroker(b.Addr()), brook.WithResetPosition(brook.Earliest),
		brook.WithFetchMaxWait(100*time.Millisecond))
	if err := c.Assign(tp); err != nil {
		t.Fatal(err)
	}
	if pos, err := c.Position(ctx, tp); err != nil || pos != 0 {
		t.Fatalf("position %d, %v", pos, err)
	}
	if err := c.Seek(tp, 5); err != nil {
		t.Fatal(err)
	}
	if got := consumerOffsets(consumerPollN(t, c, 5, 20*time.Second))[tp]; !slices.Equal(got, consumerRange(5, 10)) {
		t.Fatalf("after Seek(5): %v", got)
	}
	if lag, ok := c.Lag(tp); !ok || lag != 0 {
		t.Errorf("lag %d, %v", lag, ok)
	}
	if err := c.SeekToBeginning(); err != nil {
		t.Fatal(err)
	}
	if got := consumerOffsets(consumerPollN(t, c, 10, 20*time.Second))[tp]; !slices.Equal(got, consumerRange(0, 10)) {
		t.Fatalf("after SeekToBeginning: %v", got)
	}
	if err := c.SeekTo(brook.AtOffset(3), tp); err != nil {
		t.Fatal(err)
	}
	if pos, err := c.Position(ctx, tp); err != nil || pos != 3 {
		t.Errorf("after SeekTo(AtOffset(3)): %d, %v", pos, err)
	}
	if err := c.SeekToEnd(tp); err != nil {
		t.Fatal(err)
	}
	if pos, err := c.Position(ctx, tp); err != nil || pos != 10 {
		t.Errorf("after SeekToEnd: %d, %v", pos, err)
	}
	consumerProduce(t, b, topic, 0, 2, "late-")
	if got := consumerPollN(t, c, 2, 20*time.Second); len(got) != 2 || got[0].Offset != 10 || string(got[1].Value) != "late-1" {
		t.Errorf("after SeekToEnd and 2 more: %v", consumerOffsets(got))
	}
	if err := c.SeekTo(brook.AtTime(time.Now().Add(time.Hour))); err != nil {
		t.Fatal(err)
	}
	if pos, err := c.Position(ctx, tp); err != nil || pos != 12 {
		t.Errorf("a time after every record gives the end: %d, %v", pos, err)
	}
	earliest, err := c.ListOffsets(ctx, brook.Earliest, tp)
	latest, err2 := c.ListOffsets(ctx, brook.Latest, tp)
	if err != nil || err2 != nil || earliest[tp] != 0 || latest[tp] != 12 {
		t.Errorf("ListOffsets: %v %v, %v %v", earliest, err, latest, err2)
	}
	if err := c.Seek(brook.TopicPartition{Topic: topic, Partition: 7}, 0); err == nil {
		t.Error("Seek of a partition not assigned must fail")
	}
	if err := c.Seek(tp, -1); err == nil {
		t.Error("Seek to a negative offset must fail")
	}
	// A position beyond the end is out of range: reset to the earliest offset.
	if err := c.Seek(tp, 50); err != nil {
		t.Fatal(err)
	}
	if got := consumerPollN(t, c, 12, 20*time.Second); got[0].Offset != 0 {
		t.Errorf("after an out-of-range position, read from %d, want 0", got[0].Offset)
	}
}

// Without a committed offset a partition starts at WithResetPosition: the
// oldest record, or only records produced later.
func TestConsumerResetEarliestAndLatest(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 1, nil)
	consumerProduce(t, b, topic, 0, 5, "old-")
	tp := brook.TopicPartition{Topic: topic, Partition: 0}
	opts := func(group string, reset brook.Position) []brook.ConsumerOption {
		return []brook.ConsumerOption{brook.WithBroker(b.Addr()), brook.WithGroup(group), brook.WithTopics(topic),
			brook.WithResetPosition(reset), brook.WithFetchMaxWait(100 * time.Millisecond)}
	}
	earliest := consumerNew(t, opts(consumerGroupName(t), brook.Earliest)...)
	latest := consumerNew(t, opts(consumerGroupName(t), brook.Latest)...)

	if got := consumerOffsets(consumerPollN(t, earliest, 5, 20*time.Second))[tp]; !slices.Equal(got, consumerRange(0, 5)) {
		t.Errorf("earliest read %v", got)
	}
	// latest: join (a poll that gets no record), then its position is the end.
	deadline := time.Now().Add(20 * time.Second)
	for len(latest.Assignment()) == 0 && time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		records, err := latest.Poll(ctx)
		cancel()
		if len(records) > 0 || (err != nil && !consumerIsTimeout(err)) {
			t.Fatalf("latest polled %d records, %v", len(records), err)
		}
	}
	if pos, err := latest.Position(consumerCtx(t, 20*time.Second), tp); err != nil || pos != 5 {
		t.Fatalf("latest position %d, %v; want 5", pos, err)
	}
	consumerProduce(t, b, topic, 0, 2, "new-")
	got := consumerPollN(t, latest, 2, 20*time.Second)
	if len(got) != 2 || got[0].Offset != 5 || string(got[0].Value) != "new-0" {
		t.Errorf("latest read %v", consumerOffsets(got))
	}
}

// Without a group: Assign picks the partitions, positions come from
// WithResetPosition, commits are refused as a config error.
func TestConsumerAssignWithoutGroup(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 2, nil)
	consumerProduce(t, b, topic, 0, 5, "")
	consumerProduce(t, b, topic, 1, 5, "")
	p0, p1 := brook.TopicPartition{Topic: topic, Partition: 0}, brook.TopicPartition{Topic: topic, Partition: 1}
	ctx := consumerCtx(t, 30*time.Second)
	c := consumerNew(t, brook.WithBroker(b.Addr()), brook.WithResetPosition(brook.Earliest))
	if _, err := c.Poll(ctx); err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Poll before Assign gave %v", err)
	}
	if err := c.Assign(p1, p0); err != nil {
		t.Fatal(err)
	}
	if got := c.Assignment(); !slices.Equal(got, []brook.TopicPartition{p0, p1}) {
		t.Errorf("assignment %v", got)
	}
	offsets := consumerOffsets(consumerPollN(t, c, 10, 20*time.Second))
	if !slices.Equal(offsets[p0], consumerRange(0, 5)) || !slices.Equal(offsets[p1], consumerRange(0, 5)) {
		t.Errorf("read %v", offsets)
	}
	if err := c.CommitSync(ctx); !errors.Is(err, brook.ErrInvalidConfig) {
		t.Errorf("CommitSync without a group gave %v", err)
	}
	if _, err := c.Committed(ctx, p0); !errors.Is(err, brook.ErrInvalidConfig) {
		t.Errorf("Committed without a group gave %v", err)
	}
	if md := c.GroupMetadata(); md.Generation != -1 || md.MemberID != "" {
		t.Errorf("metadata %+v", md)
	}
	if err := c.Assign(p1); err != nil {
		t.Fatal(err)
	}
	if pos, err := c.Position(ctx, p1); err != nil || pos != 5 {
		t.Errorf("a partition kept keeps its position: %d, %v", pos, err)
	}
	if _, err := c.Position(ctx, p0); err == nil {
		t.Error("Position of a partition no longer assigned must fail")
	}
}

// Broker errors match the package's sentinels.
func TestConsumerUnknownTopicAndGroupErrors(t *testing.T) {
	b := sharedBroker
	ctx := consumerCtx(t, 30*time.Second)
	missing := "go-no-such-topic-" + strings.ToLower(consumerGroupName(t))
	c := consumerNew(t, brook.WithBroker(b.Addr()), brook.WithResetPosition(brook.Earliest))
	if err := c.Assign(brook.TopicPartition{Topic: missing, Partition: 0}); err != nil {
		t.Fatal(err)
	}
	_, err := c.Poll(ctx)
	var be *brook.BrokerError
	if !errors.Is(err, brook.ErrUnknownTopic) || !errors.As(err, &be) || be.Topic != missing {
		t.Errorf("Poll of an unknown topic gave %v", err)
	}

	// An ack-mode group cannot be joined as an offset-mode member.
	topic := b.createTopic(t, 1, nil)
	ackGroup := consumerGroupName(t)
	b.withRawConn(t, func(cc *grpc.ClientConn) {
		if _, err := brookv1.NewGroupServiceClient(cc).CreateGroup(ctx,
			&brookv1.CreateGroupRequest{Group: ackGroup, Mode: brookv1.GroupMode_GROUP_MODE_ACK}); err != nil {
			t.Fatal(err)
		}
	})
	m := consumerNew(t, brook.WithBroker(b.Addr()), brook.WithGroup(ackGroup), brook.WithTopics(topic))
	if _, err := m.Poll(ctx); !errors.Is(err, brook.ErrInconsistentGroupMode) {
		t.Errorf("joining an ack group gave %v", err)
	}

	// A session timeout outside the broker's bounds (6s..30m by default).
	s := consumerNew(t, brook.WithBroker(b.Addr()), brook.WithGroup(consumerGroupName(t)), brook.WithTopics(topic),
		brook.WithSessionTimeout(time.Second))
	if _, err := s.Poll(ctx); !errors.Is(err, brook.ErrInvalidRequest) {
		t.Errorf("a session timeout the broker refuses gave %v", err)
	}

	// A group that does not exist has nothing committed (as in Kafka), not an error.
	u := consumerNew(t, brook.WithBroker(b.Addr()), brook.WithGroup(consumerGroupName(t)))
	if got, err := u.Committed(ctx, brook.TopicPartition{Topic: topic, Partition: 0}); err != nil || len(got) != 0 {
		t.Errorf("committed of an unknown group: %v, %v", got, err)
	}
}

// Every bad option is named in one ConfigError.
func TestConsumerConfigErrors(t *testing.T) {
	_, err := brook.NewConsumer(
		brook.WithGroup("no spaces"),
		brook.WithSessionTimeout(-1),
		brook.WithMaxPollRecords(0),
		brook.WithFetchMaxBytes(0),
		brook.WithFetchMaxWait(-time.Second),
		brook.WithResetPosition(brook.AtTime(time.Now())),
		brook.WithAutoCommitInterval(0),
		brook.WithRetryBackoff(0, time.Second),
	)
	var ce *brook.ConfigError
	if !errors.Is(err, brook.ErrInvalidConfig) || !errors.As(err, &ce) || ce.Client != "consumer" {
		t.Fatalf("got %v", err)
	}
	for _, want := range []string{"a broker is required", "WithGroup", "WithSessionTimeout", "WithMaxPollRecords",
		"WithFetchMaxBytes", "WithFetchMaxWait", "WithResetPosition", "WithAutoCommitInterval", "WithRetryBackoff"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q is not named in %v", want, err)
		}
	}
	if len(ce.Problems) != 9 {
		t.Errorf("%d problems, want 9: %q", len(ce.Problems), ce.Problems)
	}
	_, err = brook.NewConsumer(brook.WithBroker("localhost:7070"), brook.WithTopics("t"), brook.WithAutoCommit(true))
	if !errors.As(err, &ce) || len(ce.Problems) != 2 {
		t.Errorf("topics and auto commit without a group: %v", err)
	}
}

// Close ends every goroutine the consumer started (membership, heartbeats,
// async commits, its connection) and commits what was read.
func TestConsumerCloseEndsEveryGoroutine(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 2, nil)
	consumerProduce(t, b, topic, 0, 5, "")
	group := consumerGroupName(t)
	check := leakCheck(t)
	c, err := brook.NewConsumer(brook.WithBroker(b.Addr()), brook.WithGroup(group), brook.WithTopics(topic),
		brook.WithResetPosition(brook.Earliest), brook.WithSessionTimeout(6*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	consumerPollN(t, c, 5, 20*time.Second)
	asyncErr := make(chan error, 1)
	c.CommitAsync(nil, func(_ map[brook.TopicPartition]int64, err error) { asyncErr <- err })
	ctx := consumerCtx(t, 20*time.Second)
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-asyncErr:
		if err != nil {
			t.Errorf("async commit: %v", err)
		}
	default:
		t.Error("Close did not run the async commit's callback")
	}
	if _, err := c.Poll(ctx); !errors.Is(err, brook.ErrClientClosed) {
		t.Errorf("Poll after Close gave %v", err)
	}
	if err := c.CommitSync(ctx); !errors.Is(err, brook.ErrClientClosed) {
		t.Errorf("CommitSync after Close gave %v", err)
	}
	check()

	reader := consumerNew(t, brook.WithBroker(b.Addr()), brook.WithGroup(group))
	if got, err := reader.Committed(ctx); err != nil || got[brook.TopicPartition{Topic: topic, Partition: 0}] != 5 {
		t.Errorf("committed %v, %v", got, err)
	}
}

// Close from another goroutine makes a Poll blocked in a long fetch return
// ErrClientClosed at once.
func TestConsumerCloseDuringBlockingPoll(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 1, nil)
	check := leakCheck(t)
	c, err := brook.NewConsumer(brook.WithBroker(b.Addr()), brook.WithGroup(consumerGroupName(t)), brook.WithTopics(topic),
		brook.WithSessionTimeout(6*time.Second), brook.WithFetchMaxWait(20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	polled := make(chan error, 1)
	go func() {
		_, err := c.Poll(context.Background())
		polled <- err
	}()
	consumerAwait(t, 20*time.Second, "the member joined", func() bool { return len(c.Assignment()) == 1 })
	start := time.Now()
	if err := c.Close(consumerCtx(t, 20*time.Second)); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-polled:
		if !errors.Is(err, brook.ErrClientClosed) {
			t.Errorf("Poll returned %v, want ErrClientClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Poll still blocked 5s after Close")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Close took %v with a fetch waiting 20s", took)
	}
	check()
}

// A connection given WithConn is the caller's: Close leaves it open.
func TestConsumerSharedConnStaysOpen(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 1, nil)
	cc, err := grpc.NewClient(b.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cc.Close() }()
	ctx := consumerCtx(t, 20*time.Second)
	c, err := brook.NewConsumer(brook.WithConn(cc))
	if err != nil {
		t.Fatal(err)
	}
	tp := brook.TopicPartition{Topic: topic, Partition: 0}
	if err := c.Assign(tp); err != nil {
		t.Fatal(err)
	}
	if pos, err := c.Position(ctx, tp); err != nil || pos != 0 {
		t.Fatalf("position %d, %v", pos, err)
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if cc.GetState() == connectivity.Shutdown {
		t.Fatal("Close closed a connection given WithConn")
	}
	if _, err := brookv1.NewFetchServiceClient(cc).ListOffsets(ctx, &brookv1.ListOffsetsRequest{
		Queries: []*brookv1.OffsetQuery{{Topic: topic, Position: &brookv1.Position{
			Kind: &brookv1.Position_Boundary{Boundary: brookv1.Boundary_BOUNDARY_EARLIEST}}}}}); err != nil {
		t.Errorf("the shared connection no longer works: %v", err)
	}
}
