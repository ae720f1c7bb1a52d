package tests

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

// Close with the broker gone waits for the buffered records; once the last
// has failed (here its delivery timeout passed), Close returns: the sender
// does not sleep on with nothing left to do until Close's context ends.
func TestCloseReturnsOnceTheLastRecordExpired(t *testing.T) {
	b := startBroker(t)
	topic := b.createTopic(t, 1, nil)
	check := leakCheck(t)
	p, err := brook.NewProducer(brook.WithBroker(b.Addr()), brook.WithRequestTimeout(500*time.Millisecond),
		brook.WithDeliveryTimeout(3*time.Second), brook.WithRetryBackoff(20*time.Millisecond, 200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t, 2*time.Minute)
	if err := p.ProduceSync(ctx, &brook.Record{Topic: topic, Value: []byte("warm")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	b.Kill()
	answered := make(chan error, 1)
	p.Produce(ctx, &brook.Record{Topic: topic, Value: []byte("lost")}, func(_ *brook.Record, err error) { answered <- err })
	closeCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := p.Close(closeCtx); err != nil {
		t.Fatalf("Close: %v; want nil once the last record failed", err)
	}
	if err := <-answered; !errors.Is(err, brook.ErrDeliveryTimeout) {
		t.Fatalf("the record: %v, want ErrDeliveryTimeout", err)
	}
	check()
}
