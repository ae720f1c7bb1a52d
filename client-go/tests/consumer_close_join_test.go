package tests

import (
	"context"
	"testing"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

// A consumer closed while its first JoinGroup waits for the rebalance (its
// Poll's context ended) must not stay in the group: the broker removes a
// member whose first join was never answered when the call goes away, so the
// others are not held up until its session timeout (60 s here).
func TestConsumerClosedDuringItsFirstJoinLeavesTheGroupAtOnce(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 2, nil)
	group := consumerGroupName(t)
	consumerProduce(t, b, topic, 0, 5, "r")
	a := consumerNew(t, brook.WithBroker(b.Addr()), brook.WithGroup(group), brook.WithTopics(topic),
		brook.WithResetPosition(brook.Earliest), brook.WithSessionTimeout(60*time.Second))
	consumerPollN(t, a, 5, 30*time.Second) // A is the group's only member

	// B's join starts a rebalance that waits for A, who is not polling now.
	bc, err := brook.NewConsumer(brook.WithBroker(b.Addr()), brook.WithGroup(group), brook.WithTopics(topic),
		brook.WithSessionTimeout(60*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if _, err := bc.Poll(short); !consumerIsTimeout(err) {
		t.Fatalf("B's Poll: %v", err)
	}
	closeCtx, cancelClose := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancelClose()
	if err := bc.Close(closeCtx); err != nil {
		t.Fatal(err)
	}

	admin, err := brook.NewAdmin(brook.WithBroker(b.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = admin.Close(context.Background()) }()
	consumerAwait(t, 20*time.Second, "the group back to one member (B removed before its 60 s session ran out)", func() bool {
		info, err := admin.DescribeGroup(context.Background(), group)
		return err == nil && len(info.Members) == 1
	})
	// A goes on: it rejoins and gets both partitions.
	consumerProduce(t, b, topic, 1, 3, "s")
	consumerPollN(t, a, 3, 30*time.Second)
	if got := a.Assignment(); len(got) != 2 {
		t.Fatalf("A holds %v, want both partitions", got)
	}
}
