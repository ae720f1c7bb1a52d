package tests

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

// goneEvents records a member's rebalance callbacks in order.
type goneEvents struct {
	mu     sync.Mutex
	events []string
}

func (e *goneEvents) add(kind string, tps []brook.TopicPartition) {
	e.mu.Lock()
	e.events = append(e.events, fmt.Sprint(kind, " ", tps))
	e.mu.Unlock()
}

func (e *goneEvents) all() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.events)
}

func (e *goneEvents) options() []brook.ConsumerOption {
	return []brook.ConsumerOption{
		brook.WithOnAssigned(func(_ context.Context, tps []brook.TopicPartition) { e.add("assigned", tps) }),
		brook.WithOnRevoked(func(_ context.Context, tps []brook.TopicPartition) { e.add("revoked", tps) }),
		brook.WithOnLost(func(_ context.Context, tps []brook.TopicPartition) { e.add("lost", tps) }),
	}
}

// Review of issue 23, finding 4: a cooperative member subscribed by pattern
// keeps its partitions while the group rebalances a deleted topic away; the
// fetch answers UNKNOWN_TOPIC for the deleted topic's partition, and the
// member must go on reading its other partition meanwhile (Kafka's fetcher
// handles errors per partition), not retry the whole fetch until the
// rebalance completes. The rebalance cannot complete here while the other
// member does not poll, so the records are read during it, and commits go
// on for them. Once it completes, the deleted topic's partition is
// revoked (not lost).
func TestConsumerCooperativePatternMemberReadsOnWhileADeletedTopicIsRebalancedAway(t *testing.T) {
	b := sharedBroker
	a := ackAdmin(t, b)
	prefix := uniqueName(t, "cg")
	x, y := prefix+"-x", prefix+"-y"
	for _, topic := range []string{x, y} {
		if _, err := a.CreateTopic(ackCtx(t), topic, 1, nil); err != nil {
			t.Fatal(err)
		}
	}
	other := b.createTopic(t, 1, nil)
	group := consumerGroupName(t)
	common := []brook.ConsumerOption{brook.WithBroker(b.Addr()), brook.WithGroup(group),
		brook.WithResetPosition(brook.Earliest), brook.WithSessionTimeout(10 * time.Second),
		brook.WithRebalanceTimeout(2 * time.Minute), brook.WithFetchMaxWait(200 * time.Millisecond),
		brook.WithRebalanceProtocol(brook.RebalanceCooperative)}
	events := &goneEvents{}
	logs, logger := newLogCapture()
	member := consumerNew(t, append(append(common, brook.WithTopicPattern(prefix+"-[xy]"), brook.WithLogger(logger)),
		events.options()...)...)
	// The other member subscribes to another topic: it owns none of these, but the group waits for it.
	idler := consumerNew(t, append(common, brook.WithTopics(other))...)
	xp, yp := brook.TopicPartition{Topic: x, Partition: 0}, brook.TopicPartition{Topic: y, Partition: 0}
	consumerPollAllUntil(t, "both members in one generation, x and y read", func() bool {
		return slices.Equal(member.Assignment(), []brook.TopicPartition{xp, yp}) &&
			len(idler.Assignment()) == 1 && member.GroupMetadata().Generation == idler.GroupMetadata().Generation
	}, member, idler)
	consumerProduce(t, b, x, 0, 2, "x")
	consumerProduce(t, b, y, 0, 2, "y")
	consumerPollUntil(t, member, "x and y read", func(got []*brook.Record) bool {
		return consumerFromTopic(got, x) == 2 && consumerFromTopic(got, y) == 2
	})

	// From here the idler does not poll: the rebalance the deletion starts waits for it.
	if err := a.DeleteTopic(ackCtx(t), x); err != nil {
		t.Fatal(err)
	}
	consumerProduce(t, b, y, 0, 3, "after")
	got := consumerPollUntil(t, member, "y's new records while the rebalance is under way", func(got []*brook.Record) bool {
		if !slices.Contains(member.Assignment(), xp) {
			t.Fatalf("the rebalance completed although the idler did not poll: %v", member.Assignment())
		}
		return consumerFromTopic(got, y) == 3
	})
	if n := consumerFromTopic(got, x); n > 0 {
		t.Fatalf("read %d records of the deleted topic", n)
	}
	// Commits go on for y: one naming the deleted topic would be refused as a whole.
	if err := member.CommitSync(consumerCtx(t, 20*time.Second)); err != nil {
		t.Fatalf("CommitSync while the deleted topic is still assigned: %v", err)
	}
	if failed := logs.lines("commit", "failed"); len(failed) > 0 {
		t.Fatalf("commits failed while the deleted topic was still assigned: %v", failed)
	}

	consumerPollAllUntil(t, "x rebalanced away", func() bool {
		return slices.Equal(member.Assignment(), []brook.TopicPartition{yp})
	}, member, idler)
	var gave []string // revoked or lost
	for _, e := range events.all() {
		if !strings.HasPrefix(e, "assigned") {
			gave = append(gave, e)
		}
	}
	if want := []string{fmt.Sprint("revoked ", []brook.TopicPartition{xp})}; !slices.Equal(gave, want) {
		t.Fatalf("partitions given up: %v, want %v (all callbacks: %v)", gave, want, events.all())
	}
}
