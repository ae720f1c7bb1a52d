package tests

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

// A partition paused while a fetch of it waits at the broker: the records
// that fetch brings back are not returned (as Kafka's consumer drops them),
// and its position stays, so Resume reads them then.
func TestConsumerPauseDuringAFetchReturnsNoneOfThePausedRecords(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 1, nil)
	tp := brook.TopicPartition{Topic: topic, Partition: 0}
	c := consumerNew(t, brook.WithBroker(b.Addr()), brook.WithResetPosition(brook.Earliest),
		brook.WithFetchMaxWait(5*time.Second))
	if err := c.Assign(tp); err != nil {
		t.Fatal(err)
	}
	if pos, err := c.Position(consumerCtx(t, 20*time.Second), tp); err != nil || pos != 0 {
		t.Fatalf("position %d, %v", pos, err)
	}

	type polled struct {
		records []*brook.Record
		err     error
	}
	done := make(chan polled, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
		defer cancel()
		records, err := c.Poll(ctx)
		done <- polled{records, err}
	}()
	time.Sleep(500 * time.Millisecond) // the Poll's fetch now waits at the broker for a record
	if err := c.Pause(tp); err != nil {
		t.Fatal(err)
	}
	consumerProduce(t, b, topic, 0, 1, "late-") // answers the waiting fetch
	got := <-done
	if len(got.records) > 0 || !errors.Is(got.err, context.DeadlineExceeded) {
		t.Fatalf("Poll of a partition paused during its fetch gave %d records, %v; want none, deadline exceeded",
			len(got.records), got.err)
	}
	if paused := c.Paused(); !slices.Equal(paused, []brook.TopicPartition{tp}) {
		t.Errorf("paused %v", paused)
	}
	if pos, err := c.Position(consumerCtx(t, 20*time.Second), tp); err != nil || pos != 0 {
		t.Errorf("the paused partition's position moved to %d (%v); want 0", pos, err)
	}

	if err := c.Resume(tp); err != nil {
		t.Fatal(err)
	}
	records := consumerPollN(t, c, 1, 20*time.Second)
	if records[0].Offset != 0 || string(records[0].Value) != "late-0" {
		t.Errorf("after Resume read offset %d %q; want 0 \"late-0\"", records[0].Offset, records[0].Value)
	}
	if err := c.Pause(brook.TopicPartition{Topic: topic, Partition: 7}); err == nil {
		t.Error("Pause of a partition not assigned must fail")
	}
}
