package tests

import (
	"testing"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

// Review of issue 23, finding 9: a cooperative member hears WithOnRevoked only
// when it gives up some partitions, in a rebalance as at Close (Kafka's
// cooperative consumer skips an empty revocation); an eager one always does.
func TestConsumerCooperativeMemberWithoutPartitionsClosesWithoutARevoke(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 1, nil)
	group := consumerGroupName(t)
	member := func() (*brook.Consumer, *goneEvents) {
		events := &goneEvents{}
		return consumerNew(t, append(events.options(), brook.WithBroker(b.Addr()), brook.WithGroup(group),
			brook.WithTopics(topic), brook.WithSessionTimeout(10*time.Second), brook.WithFetchMaxWait(200*time.Millisecond),
			brook.WithRebalanceProtocol(brook.RebalanceCooperative))...), events
	}
	one, oneEvents := member()
	two, twoEvents := member()
	consumerPollAllUntil(t, "the partition owned by one member, both in one generation", func() bool {
		return len(one.Assignment())+len(two.Assignment()) == 1 &&
			one.GroupMetadata().Generation == two.GroupMetadata().Generation && one.GroupMetadata().Generation > 0
	}, one, two)
	empty, events := one, oneEvents
	if len(two.Assignment()) == 0 {
		empty, events = two, twoEvents
	}
	before := len(events.all())
	if err := empty.Close(consumerCtx(t, 20*time.Second)); err != nil {
		t.Fatal(err)
	}
	if atClose := events.all()[before:]; len(atClose) > 0 {
		t.Fatalf("callbacks at Close of the member without partitions: %v, want none", atClose)
	}
}
