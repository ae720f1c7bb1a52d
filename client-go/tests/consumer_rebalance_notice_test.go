package tests

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

// noticeWithin is far below the 30 s heartbeat interval these tests' broker
// gives its members, and far above what a rebalance takes.
const noticeWithin = 10 * time.Second

// noticeMember is a group member polling on its own goroutine, as an
// application does, recording its rebalance callbacks.
type noticeMember struct {
	c      *brook.Consumer
	stop   context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	events []string
	owned  []brook.TopicPartition
	err    error
}

func noticeStart(t *testing.T, b *brokerProcess, group, topic string) *noticeMember {
	m := &noticeMember{done: make(chan struct{})}
	// A 90 s session: the broker's interval is min(30 s, 90 s / 3) = 30 s.
	m.c = consumerNew(t, brook.WithBroker(b.Addr()), brook.WithGroup(group), brook.WithTopics(topic),
		brook.WithResetPosition(brook.Earliest), brook.WithSessionTimeout(90*time.Second),
		brook.WithFetchMaxWait(200*time.Millisecond),
		brook.WithOnAssigned(func(_ context.Context, tps []brook.TopicPartition) {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.owned = tps
			m.events = append(m.events, fmt.Sprint("assigned ", noticeSorted(tps)))
		}),
		brook.WithOnRevoked(func(_ context.Context, tps []brook.TopicPartition) {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.owned = nil
			m.events = append(m.events, fmt.Sprint("revoked ", noticeSorted(tps)))
		}))
	ctx, cancel := context.WithCancel(context.Background())
	m.stop = cancel
	go func() {
		defer close(m.done)
		for ctx.Err() == nil {
			if _, err := m.c.Poll(ctx); err != nil && ctx.Err() == nil {
				m.mu.Lock()
				m.err = err
				m.mu.Unlock()
				return
			}
		}
	}()
	t.Cleanup(m.halt)
	return m
}

// halt stops the poll loop (the member stays in the group until Close).
func (m *noticeMember) halt() {
	m.stop()
	<-m.done
}

func (m *noticeMember) ownedCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.owned)
}

func (m *noticeMember) eventCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.events)
}

func (m *noticeMember) eventsSince(i int) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.events[i:])
}

func (m *noticeMember) check(t *testing.T) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		t.Fatalf("poll loop failed: %v", m.err)
	}
}

func noticeSorted(tps []brook.TopicPartition) []brook.TopicPartition {
	out := slices.Clone(tps)
	slices.SortFunc(out, func(a, b brook.TopicPartition) int { return int(a.Partition - b.Partition) })
	return out
}

func noticeAll(topic string) []brook.TopicPartition {
	return []brook.TopicPartition{{Topic: topic, Partition: 0}, {Topic: topic, Partition: 1},
		{Topic: topic, Partition: 2}, {Topic: topic, Partition: 3}}
}

// A member that closes hands its partitions to the other at once: the
// other's open heartbeat is answered when the group changes, it does not
// wait for its next one (30 s away here).
func TestConsumerCloseHandsPartitionsBackBeforeTheNextHeartbeat(t *testing.T) {
	b := startBroker(t, "--set", "group.heartbeat.interval.ms=30000")
	topic := b.createTopic(t, 4, nil)
	group := consumerGroupName(t)
	a := noticeStart(t, b, group, topic)
	consumerAwait(t, 30*time.Second, "a owns every partition", func() bool { return a.ownedCount() == 4 })
	other := noticeStart(t, b, group, topic)
	// The join is the next test's subject: a generous bound here, so this one tests the leave alone.
	consumerAwait(t, 90*time.Second, "a and b share the partitions", func() bool {
		return a.ownedCount() == 2 && other.ownedCount() == 2
	})
	a.mu.Lock()
	half := noticeSorted(a.owned)
	a.mu.Unlock()
	before := a.eventCount()

	other.halt()
	if err := other.c.Close(consumerCtx(t, 20*time.Second)); err != nil {
		t.Fatal(err)
	}
	consumerAwait(t, noticeWithin, "a got every partition back after b closed", func() bool { return a.ownedCount() == 4 })
	a.check(t)
	want := []string{fmt.Sprint("revoked ", half), fmt.Sprint("assigned ", noticeAll(topic))}
	if got := a.eventsSince(before); !slices.Equal(got, want) {
		t.Fatalf("a's callbacks after b closed: %q, want %q", got, want)
	}
}

// A member that joins makes the other rebalance at once, not at its next heartbeat.
func TestConsumerJoinRebalancesTheOthersBeforeTheirNextHeartbeat(t *testing.T) {
	b := startBroker(t, "--set", "group.heartbeat.interval.ms=30000")
	topic := b.createTopic(t, 4, nil)
	group := consumerGroupName(t)
	a := noticeStart(t, b, group, topic)
	consumerAwait(t, 30*time.Second, "a owns every partition", func() bool { return a.ownedCount() == 4 })
	before := a.eventCount()

	other := noticeStart(t, b, group, topic)
	consumerAwait(t, noticeWithin, "a and b share the partitions", func() bool {
		return a.ownedCount() == 2 && other.ownedCount() == 2
	})
	a.check(t)
	other.check(t)
	a.mu.Lock()
	half := noticeSorted(a.owned)
	a.mu.Unlock()
	want := []string{fmt.Sprint("revoked ", noticeAll(topic)), fmt.Sprint("assigned ", half)}
	if got := a.eventsSince(before); !slices.Equal(got, want) {
		t.Fatalf("a's callbacks after b joined: %q, want %q", got, want)
	}
}
