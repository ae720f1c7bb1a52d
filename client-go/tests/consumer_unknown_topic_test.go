package tests

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

// consumerPollUntil polls until cond holds for what came so far, failing the test after 30 s.
func consumerPollUntil(t testing.TB, c *brook.Consumer, what string, cond func(got []*brook.Record) bool) []*brook.Record {
	t.Helper()
	var got []*brook.Record
	deadline := time.Now().Add(30 * time.Second)
	for !cond(got) {
		if time.Now().After(deadline) {
			t.Fatalf("not within 30 s: %s (%d records)", what, len(got))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		records, err := c.Poll(ctx)
		cancel()
		if err != nil && !consumerIsTimeout(err) {
			t.Fatalf("poll (%s): %v", what, err)
		}
		got = append(got, records...)
	}
	return got
}

// consumerPollAllUntil polls each consumer in turn (a rebalance waits for every
// member to poll) until cond holds, failing the test after 30 s.
func consumerPollAllUntil(t testing.TB, what string, cond func() bool, cs ...*brook.Consumer) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within 30 s: %s", what)
		}
		for _, c := range cs {
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			_, err := c.Poll(ctx)
			cancel()
			if err != nil && !consumerIsTimeout(err) {
				t.Fatalf("poll (%s): %v", what, err)
			}
		}
	}
}

func consumerFromTopic(records []*brook.Record, topic string) int {
	n := 0
	for _, r := range records {
		if r.Topic == topic {
			n++
		}
	}
	return n
}

// Issue 23, defect 4: a subscription to a topic that does not exist is not
// silent. The consumer logs one warning for it (not one per poll or per
// rebalance), lists it in UnknownTopics, goes on with its other topic, and
// consumes the topic once it is created; deleted later, the topic is warned
// about again.
func TestConsumerWarnsOnceAboutAMissingTopicAndConsumesItOnceCreated(t *testing.T) {
	b := sharedBroker
	a := ackAdmin(t, b)
	existing := b.createTopic(t, 1, nil)
	missing := uniqueName(t, "missing")
	group := consumerGroupName(t)
	logs, logger := newLogCapture()
	c := consumerNew(t, brook.WithBroker(b.Addr()), brook.WithGroup(group), brook.WithTopics(existing, missing),
		brook.WithResetPosition(brook.Earliest), brook.WithLogger(logger))
	consumerProduce(t, b, existing, 0, 2, "e")

	consumerPollUntil(t, c, "the existing topic's records", func(got []*brook.Record) bool {
		return consumerFromTopic(got, existing) == 2
	})
	if got := c.UnknownTopics(); !slices.Equal(got, []string{missing}) {
		t.Fatalf("UnknownTopics = %v, want [%s]", got, missing)
	}
	// Another member joins and leaves: two rebalances, two more joins, while the topic is still missing.
	other := consumerNew(t, brook.WithBroker(b.Addr()), brook.WithGroup(group), brook.WithTopics(existing, missing))
	consumerPollAllUntil(t, "a generation with both members", func() bool {
		return c.GroupMetadata().Generation >= 2 && other.GroupMetadata().Generation == c.GroupMetadata().Generation
	}, c, other)
	if err := other.Close(ackCtx(t)); err != nil {
		t.Fatal(err)
	}
	consumerPollAllUntil(t, "a generation without the other member", func() bool {
		return c.GroupMetadata().Generation >= 3
	}, c)
	if n := len(logs.lines("level=WARN", "topic="+missing)); n != 1 {
		t.Errorf("%d warnings about the missing topic after several polls and rebalances, want 1", n)
	}

	if _, err := a.CreateTopic(ackCtx(t), missing, 2, nil); err != nil {
		t.Fatal(err)
	}
	consumerProduce(t, b, missing, 0, 3, "m")
	consumerProduce(t, b, missing, 1, 3, "n")
	consumerPollUntil(t, c, "the created topic's records", func(got []*brook.Record) bool {
		return consumerFromTopic(got, missing) == 6
	})
	if got := c.UnknownTopics(); len(got) != 0 {
		t.Errorf("UnknownTopics = %v once the topic exists, want none", got)
	}

	if err := a.DeleteTopic(ackCtx(t), missing); err != nil {
		t.Fatal(err)
	}
	consumerPollUntil(t, c, "the deleted topic reported", func([]*brook.Record) bool {
		return slices.Equal(c.UnknownTopics(), []string{missing})
	})
	if n := len(logs.lines("level=WARN", "topic="+missing)); n != 2 {
		t.Errorf("%d warnings about the topic after it was deleted, want 2 (one more)", n)
	}
}
