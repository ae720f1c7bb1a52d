package tests

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

// A broker killed and restarted (same port and data) under an ack loop: the consumer opens its stream again by
// itself and goes on; every record is received and acked in the end (at least
// once: those leased when the broker stopped come again with a higher attempt).
// The admin client made before the restart fails with ErrBrokerUnavailable
// while the broker is down and works again once it is back.
func TestAckConsumerGoesOnAfterABrokerRestart(t *testing.T) {
	b := startBroker(t)
	a := ackAdmin(t, b)
	topic := b.createTopic(t, 2, nil)
	group := ackGroup(t, a)
	ackProduceValues(t, b, topic, 0, 150, "a")
	ackProduceValues(t, b, topic, 1, 150, "b")
	var mu sync.Mutex
	var refused []*brook.SettleError
	c := ackConsumer(t, b, group, []string{topic}, brook.WithMaxOutstandingRecords(50),
		brook.WithRetryBackoff(50*time.Millisecond, time.Second),
		brook.WithAckFailureHandler(func(e *brook.SettleError) {
			mu.Lock()
			refused = append(refused, e)
			mu.Unlock()
		}))

	deliveries := map[string]int{}
	redeliveries := 0
	restarted := false
	deadline := time.Now().Add(60 * time.Second)
	for len(deliveries) < 400 && time.Now().Before(deadline) {
		for _, r := range ackPoll(t, c, 100*time.Millisecond) {
			deliveries[string(r.Value)]++
			if deliveries[string(r.Value)] > 1 {
				redeliveries++
				if r.DeliveryAttempt < 2 {
					t.Errorf("a redelivery of %s with attempt %d", r.Value, r.DeliveryAttempt)
				}
			}
			if err := c.Ack(r); err != nil {
				t.Fatal(err)
			}
		}
		if !restarted && len(deliveries) >= 100 {
			restarted = true
			b.Kill() // SIGKILL, with acks queued and in flight
			_, err := a.ListTopics(ackCtx(t))
			var be *brook.BrokerError
			if !errors.Is(err, brook.ErrBrokerUnavailable) || !errors.As(err, &be) || !be.Retriable() {
				t.Errorf("admin while the broker is down: %v, want a retriable ErrBrokerUnavailable", err)
			}
			b.launch(b.port) // the same port and data
			// Produced after the restart: 400 in all.
			ackProduceValues(t, b, topic, 0, 50, "c")
			ackProduceValues(t, b, topic, 1, 50, "d")
		}
	}
	if !restarted || len(deliveries) != 400 {
		t.Fatalf("restarted %v, %d distinct records received, want 400", restarted, len(deliveries))
	}
	var g brook.GroupInfo
	for { // the admin's connection comes back by itself
		ctx := ackCtx(t)
		if _, err := a.ListTopics(ctx); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("admin after the restart: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	g = ackAwaitAllSettled(t, a, group) // every record acked in the end
	for _, p := range g.Partitions {
		if p.EndOffset != 200 {
			t.Errorf("partition %+v: end offset %d, want 200", p, p.EndOffset)
		}
	}
	s := c.Stats()
	if s.Reconnects == 0 || s.RedeliveredRecords != int64(redeliveries) {
		t.Errorf("stats %+v, %d redeliveries seen", s, redeliveries)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, e := range refused {
		if !errors.Is(e, brook.ErrNotLeased) && !errors.Is(e, brook.ErrLeaseExpired) && !errors.Is(e, brook.ErrAlreadySettled) {
			t.Errorf("refused: %v", e)
		}
	}
	t.Logf("restart: %d distinct records, %d redeliveries, %d reconnects, %d settle failures",
		len(deliveries), redeliveries, s.Reconnects, len(refused))
}
