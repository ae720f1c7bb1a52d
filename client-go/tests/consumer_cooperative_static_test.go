package tests

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/brook-io/brook/client-go/brook"
	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
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

// Review of issue 23, finding 3: a cooperative member whose rejoin was
// answered while the application did not call Poll, and which then left the
// group for not polling within its rebalance timeout, does not apply that
// answer at its next Poll: its partitions are lost (WithOnLost first, no
// WithOnRevoked or WithOnAssigned of the stale answer), and it joins again.
func TestConsumerCooperativeAnswerOfALostMembershipIsNotApplied(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 2, nil)
	other := b.createTopic(t, 1, nil)
	group := consumerGroupName(t)
	member := func(rebalanceTimeout time.Duration, opts ...brook.ConsumerOption) *brook.Consumer {
		return consumerNew(t, append([]brook.ConsumerOption{brook.WithBroker(b.Addr()), brook.WithGroup(group),
			brook.WithResetPosition(brook.Earliest), brook.WithSessionTimeout(30 * time.Second),
			brook.WithRebalanceTimeout(rebalanceTimeout), brook.WithFetchMaxWait(200 * time.Millisecond),
			brook.WithRebalanceProtocol(brook.RebalanceCooperative)}, opts...)...)
	}
	events := &goneEvents{}
	logs, logger := newLogCapture()
	slow := member(3*time.Second, append(events.options(), brook.WithTopics(topic), brook.WithLogger(logger))...)
	idler := member(2*time.Minute, brook.WithTopics(other))
	consumerPollAllUntil(t, "both members in one generation", func() bool {
		return len(slow.Assignment()) == 2 && len(idler.Assignment()) == 1 &&
			slow.GroupMetadata().Generation == idler.GroupMetadata().Generation
	}, slow, idler)
	generation := idler.GroupMetadata().Generation

	// A third member starts a rebalance; the slow member's cooperative rejoin stays pending
	// while the idler does not poll.
	third := member(2*time.Minute, brook.WithTopics(other))
	pollBriefly := func(c *brook.Consumer) {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		if _, err := c.Poll(ctx); err != nil && !consumerIsTimeout(err) {
			t.Fatalf("poll: %v", err)
		}
	}
	pollBriefly(third)
	for range 5 {
		pollBriefly(slow)
	}
	before := len(events.all())
	// The slow member's application stops calling Poll; the rebalance completes without it.
	consumerPollAllUntil(t, "the rebalance completed", func() bool {
		return idler.GroupMetadata().Generation > generation
	}, idler, third)
	consumerAwait(t, 30*time.Second, "the slow member left the group for not polling", func() bool {
		return len(logs.lines("Poll was not called within the rebalance timeout")) > 0
	})
	pollBriefly(slow)
	after := events.all()[before:]
	lost := fmt.Sprint("lost ", []brook.TopicPartition{{Topic: topic, Partition: 0}, {Topic: topic, Partition: 1}})
	if len(after) == 0 || after[0] != lost {
		t.Fatalf("callbacks at the Poll after the loss: %v, want %q first", after, lost)
	}
}

// Review of issue 23, finding 7: a cooperative rejoin answered
// UNKNOWN_MEMBER_ID (the member was removed while it rejoined) leaves the
// member's partitions lost: Close before the next Poll runs WithOnLost and
// commits nothing (it used to commit as member "" and fail, and run
// WithOnRevoked).
func TestConsumerCooperativeMemberRemovedWhileRejoiningClosesWithItsPartitionsLost(t *testing.T) {
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
	removed := member(append(events.options(), brook.WithTopics(topic))...)
	idler := member(brook.WithTopics(other))
	consumerPollAllUntil(t, "both members in one generation", func() bool {
		return len(removed.Assignment()) == 2 && len(idler.Assignment()) == 1 &&
			removed.GroupMetadata().Generation == idler.GroupMetadata().Generation
	}, removed, idler)
	memberID := removed.GroupMetadata().MemberID

	third := member(brook.WithTopics(other))
	pollBriefly := func(c *brook.Consumer) {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		if _, err := c.Poll(ctx); err != nil && !consumerIsTimeout(err) {
			t.Fatalf("poll: %v", err)
		}
	}
	pollBriefly(third)
	for range 5 {
		pollBriefly(removed) // rejoins cooperatively; pending while the idler does not poll
	}
	before := len(events.all())
	b.withRawConn(t, func(cc *grpc.ClientConn) {
		if _, err := brookv1.NewGroupServiceClient(cc).LeaveGroup(consumerCtx(t, 10*time.Second),
			&brookv1.LeaveGroupRequest{Group: group, MemberId: memberID}); err != nil {
			t.Fatal(err)
		}
	})
	consumerAwait(t, 30*time.Second, "the rejoin answered", func() bool {
		return removed.GroupMetadata().MemberID == ""
	})
	if err := removed.Close(consumerCtx(t, 20*time.Second)); err != nil {
		t.Fatalf("Close: %v", err)
	}
	lost := fmt.Sprint("lost ", []brook.TopicPartition{{Topic: topic, Partition: 0}, {Topic: topic, Partition: 1}})
	if atClose := events.all()[before:]; !slices.Equal(atClose, []string{lost}) {
		t.Fatalf("callbacks at Close: %v, want [%s]", atClose, lost)
	}
}
