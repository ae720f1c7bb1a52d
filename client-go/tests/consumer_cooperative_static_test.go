package tests

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

// Review of issue 23, finding 8: a cooperative static member whose rejoin is
// answered MEMBER_REPLACED (a newer consumer with its instance id joined
// while the rebalance was under way) gives its partitions up as lost, and
// only then does Poll fail, with the same "close this consumer" error as
// every later Poll (D62), not the bare error before WithOnLost.
func TestConsumerCooperativeStaticMemberFencedWhileRejoining(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 2, nil)
	other := b.createTopic(t, 1, nil)
	group := consumerGroupName(t)
	member := func(opts ...brook.ConsumerOption) *brook.Consumer {
		return consumerNew(t, append([]brook.ConsumerOption{brook.WithBroker(b.Addr()), brook.WithGroup(group),
			brook.WithResetPosition(brook.Earliest), brook.WithSessionTimeout(30 * time.Second),
			brook.WithRebalanceTimeout(2 * time.Minute), brook.WithFetchMaxWait(200 * time.Millisecond),
			brook.WithRebalanceProtocol(brook.RebalanceCooperative)}, opts...)...)
	}
	events := &goneEvents{}
	older := member(append(events.options(), brook.WithTopics(topic), brook.WithGroupInstanceID("worker-1"))...)
	idler := member(brook.WithTopics(other))
	consumerPollAllUntil(t, "both members in one generation", func() bool {
		return len(older.Assignment()) == 2 && len(idler.Assignment()) == 1 &&
			older.GroupMetadata().Generation == idler.GroupMetadata().Generation
	}, older, idler)

	// From here the idler does not poll: the rebalance a third member starts waits for it,
	// and the older member's cooperative rejoin stays pending meanwhile.
	third := member(brook.WithTopics(other))
	pollBriefly := func(c *brook.Consumer) {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		if _, err := c.Poll(ctx); err != nil && !consumerIsTimeout(err) {
			t.Fatalf("poll: %v", err)
		}
	}
	pollBriefly(third) // its join goes on in the background
	for range 5 {
		pollBriefly(older) // notices the rebalance and rejoins, keeping its partitions
	}
	if got := older.Assignment(); len(got) != 2 {
		t.Fatalf("the older member gave up partitions while rejoining cooperatively: %v", got)
	}
	newer := member(brook.WithTopics(topic), brook.WithGroupInstanceID("worker-1"))
	pollBriefly(newer) // takes worker-1's place: the older member's pending join is answered MEMBER_REPLACED

	var err error
	consumerAwait(t, 30*time.Second, "the older member's Poll fails", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		_, err = older.Poll(ctx)
		return err != nil && !consumerIsTimeout(err)
	})
	if !errors.Is(err, brook.ErrMemberReplaced) || !strings.Contains(err.Error(), "close this consumer") {
		t.Fatalf("first failed Poll: %v, want ErrMemberReplaced saying to close the consumer", err)
	}
	lost := fmt.Sprint("lost ", []brook.TopicPartition{{Topic: topic, Partition: 0}, {Topic: topic, Partition: 1}})
	if got := events.all(); !slices.Contains(got, lost) || slices.ContainsFunc(got, func(e string) bool {
		return strings.HasPrefix(e, "revoked")
	}) {
		t.Fatalf("callbacks before the failed Poll returned: %v, want %q and no revoke", got, lost)
	}
	if _, err := older.Poll(consumerCtx(t, time.Second)); !errors.Is(err, brook.ErrMemberReplaced) {
		t.Fatalf("next Poll: %v, want ErrMemberReplaced (for good)", err)
	}
}
