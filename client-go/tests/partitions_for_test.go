package tests

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

// PartitionsFor on the producer and the consumer answers what the admin's
// DescribeTopic does, read from the broker at each call; an unknown topic is
// ErrUnknownTopic.
func TestPartitionsForOnTheProducerAndTheConsumer(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 3, nil)
	consumerProduce(t, b, topic, 1, 4, "")
	ctx := consumerCtx(t, 30*time.Second)
	p := newProducer(t, b)
	c := consumerNew(t, brook.WithBroker(b.Addr()))

	fromProducer, err := p.PartitionsFor(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	fromConsumer, err := c.PartitionsFor(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	described, err := ackAdmin(t, b).DescribeTopic(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fromProducer, described.Partitions) || !slices.Equal(fromConsumer, described.Partitions) {
		t.Fatalf("producer %+v, consumer %+v, admin %+v", fromProducer, fromConsumer, described.Partitions)
	}
	var ends []int64
	for i, pi := range fromProducer {
		if pi.Partition != int32(i) {
			t.Errorf("partition %d at index %d", pi.Partition, i)
		}
		ends = append(ends, pi.EndOffset)
	}
	if !slices.Equal(ends, []int64{0, 4, 0}) {
		t.Errorf("end offsets %v, want [0 4 0]", ends)
	}

	consumerProduce(t, b, topic, 2, 1, "")
	if now, err := c.PartitionsFor(ctx, topic); err != nil || now[2].EndOffset != 1 {
		t.Errorf("a second call reads the broker again: %+v, %v", now, err)
	}

	if _, err := p.PartitionsFor(ctx, "go-no-such-topic-described"); !errors.Is(err, brook.ErrUnknownTopic) {
		t.Errorf("producer, unknown topic: %v", err)
	}
	if _, err := c.PartitionsFor(ctx, "go-no-such-topic-described"); !errors.Is(err, brook.ErrUnknownTopic) {
		t.Errorf("consumer, unknown topic: %v", err)
	}
}
