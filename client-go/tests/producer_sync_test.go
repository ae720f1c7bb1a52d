package tests

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

// ProduceSync with a context that has ended sends nothing: the error says
// the record was not sent, and the partition's end does not move (the next
// record takes the offset it would have had).
func TestProduceSyncWithAnEndedContextWritesNothing(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 1, nil)
	p := newProducer(t, b)
	ctx := testCtx(t, 60*time.Second)
	if err := p.ProduceSync(ctx, &brook.Record{Topic: topic, Value: []byte("warm")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	dead, cancel := context.WithCancel(ctx)
	cancel()
	res := p.ProduceSync(dead, &brook.Record{Topic: topic, Value: []byte("cancelled")})
	if err := res.FirstErr(); !errors.Is(err, brook.ErrRecordNotSent) || !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want ErrRecordNotSent and context.Canceled", err)
	}
	after := p.ProduceSync(ctx, &brook.Record{Topic: topic, Value: []byte("after")})
	if err := after.FirstErr(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	var stored []string
	for _, r := range b.fetchAll(t, topic, 0) {
		stored = append(stored, string(r.GetValue()))
	}
	if fmt.Sprint(stored) != "[warm after]" || after[0].Record.Offset != 1 {
		t.Fatalf("stored %v, \"after\" at offset %d; want [warm after], 1", stored, after[0].Record.Offset)
	}
}

// ProduceSync's context ends while its records wait for their linger: they
// are taken out of the buffer and never written. Whatever the producer does
// afterwards, it never writes the records it returned (the race detector
// watches), and no record it says was not sent is written. With a linger of
// 200 ms (the case) a record may have left already (outcome
// unknown); with one of an hour none has.
func TestProduceSyncThatTimesOutLeavesItsResultsAlone(t *testing.T) {
	for _, linger := range []time.Duration{200 * time.Millisecond, time.Hour} {
		t.Run(linger.String(), func(t *testing.T) {
			notSent := produceSyncTimingOut(t, linger)
			if linger == time.Hour && notSent != 20 {
				t.Fatalf("%d of 20 records not sent, want all", notSent)
			}
		})
	}
}

// produceSyncTimingOut runs ProduceSync of 20 records with a 20 ms context
// and checks its results; it returns how many were not sent.
func produceSyncTimingOut(t *testing.T, linger time.Duration) int {
	b := sharedBroker
	topic := b.createTopic(t, 1, nil)
	p := newProducer(t, b, brook.WithLinger(linger), brook.WithDeliveryTimeout(2*time.Hour))
	ctx := testCtx(t, 60*time.Second)
	p.Produce(ctx, &brook.Record{Topic: topic, Value: []byte("warm")}, nil) // the partition count is cached now
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	var records []*brook.Record
	for i := 0; i < 20; i++ {
		records = append(records, &brook.Record{Topic: topic, Value: []byte(fmt.Sprint(i)), Offset: -1})
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	res := p.ProduceSync(short, records...)
	type seen struct {
		offset int64
		ts     time.Time
	}
	before := make([]seen, len(res))
	notSent := map[string]bool{}
	for i, r := range res {
		before[i] = seen{r.Record.Offset, r.Record.Timestamp}
		switch {
		case errors.Is(r.Err, brook.ErrRecordNotSent) && errors.Is(r.Err, context.DeadlineExceeded):
			notSent[string(r.Record.Value)] = true
		case errors.Is(r.Err, brook.ErrRecordOutcomeUnknown) && errors.Is(r.Err, context.DeadlineExceeded):
		default:
			t.Fatalf("record %d: %v, want ErrRecordNotSent or ErrRecordOutcomeUnknown with the deadline", i, r.Err)
		}
	}
	if err := p.Flush(ctx); err != nil { // whatever was in flight is answered now
		t.Fatal(err)
	}
	for i, r := range res {
		if got := (seen{r.Record.Offset, r.Record.Timestamp}); got != before[i] {
			t.Fatalf("record %d changed after ProduceSync returned: %+v, then %+v", i, before[i], got)
		}
	}
	for _, r := range b.fetchAll(t, topic, 0) {
		if notSent[string(r.GetValue())] {
			t.Fatalf("record %s was written, though ProduceSync said it was not sent", r.GetValue())
		}
	}
	return len(notSent)
}
