package tests

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

// ackAwaitSettleMessages waits (20 s at most) until the consumer's background
// sender has sent more than n settle messages on its stream.
func ackAwaitSettleMessages(t testing.TB, c *brook.AckConsumer, n int64) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for c.Stats().SettleMessages <= n {
		if time.Now().After(deadline) {
			t.Fatalf("no settle message sent in the background in 20 s: %+v", c.Stats())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ackRefusalCovers: err holds a refusal (not-leased or already-settled) of
// each of these offsets of topic/0.
func ackRefusalCovers(t testing.TB, err error, topic string, offsets ...int64) {
	t.Helper()
	refused := brook.SettleErrors(err)
	for _, o := range offsets {
		found := false
		for _, se := range refused {
			if se.Topic == topic && se.Partition == 0 && se.FirstOffset <= o && o <= se.LastOffset &&
				(errors.Is(se, brook.ErrNotLeased) || errors.Is(se, brook.ErrAlreadySettled)) {
				found = true
			}
		}
		if !found {
			t.Errorf("offset %d: no refusal in Flush's error %v", o, err)
		}
	}
}

// ackOneLeasedRecord makes a topic with one record and an ack consumer that
// holds it leased, whose settles go out in one background message of two (the
// batch is full at two, the interval never comes); handled lists what its
// failure handler heard.
func ackOneLeasedRecord(t *testing.T, b *brokerProcess) (c *brook.AckConsumer, r *brook.AckRecord, topic string,
	handled func() []*brook.SettleError) {
	t.Helper()
	topic = b.createTopic(t, 1, nil)
	group := ackGroup(t, ackAdmin(t, b))
	ackProduceValues(t, b, topic, 0, 1, "v")
	var mu sync.Mutex
	var heard []*brook.SettleError
	c = ackConsumer(t, b, group, []string{topic}, brook.WithAckMaxBatch(2), brook.WithAckFlushInterval(time.Minute),
		brook.WithAckFailureHandler(func(e *brook.SettleError) {
			mu.Lock()
			heard = append(heard, e)
			mu.Unlock()
		}))
	return c, ackTake(t, c, 1)[0], topic, func() []*brook.SettleError {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(heard)
	}
}

// Issue 23, defect 7: a settle the background sender put on the stream before
// Flush was called, and the broker refused, is reported by Flush (whoever
// sent it), not only by the failure handler. The record is rejected and then
// acked: whichever the broker applies first, it refuses the other.
func TestAckFlushReportsARefusalOfASettleSentInTheBackground(t *testing.T) {
	c, r, topic, handled := ackOneLeasedRecord(t, sharedBroker)
	if err := c.Reject(r); err != nil {
		t.Fatal(err)
	}
	if err := c.Ack(r); err != nil {
		t.Fatal(err)
	}
	ackAwaitSettleMessages(t, c, 0) // Flush finds nothing queued

	err := c.Flush(ackCtx(t))
	if err == nil {
		t.Fatal("Flush returned nil, but the broker refused the reject or the ack of offset 0")
	}
	ackRefusalCovers(t, err, topic, 0)
	if err := c.Flush(ackCtx(t)); err != nil {
		t.Errorf("a second Flush: %v, want nil (every refusal is returned once)", err)
	}
	if heard := handled(); len(heard) != 1 {
		t.Errorf("the failure handler heard %v, want the one refusal", heard)
	}
}

// Issue 23, defect 7, as reported: acks queued while the broker restarts are
// sent by the background sender on the new stream (a new member id, after the
// broker restart), and the broker refuses them; Flush, called after that, must
// return those refusals. max.delivery.attempts=1 makes the restarted broker
// dead-letter the records instead of leasing them again, so it refuses every
// one of the acks.
func TestAckFlushReportsRefusalsOfAcksQueuedAcrossABrokerRestart(t *testing.T) {
	b := startBroker(t)
	a := ackAdmin(t, b)
	topic := b.createTopic(t, 1, nil)
	group := ackGroup(t, a, "max.delivery.attempts", "1")
	ackProduceValues(t, b, topic, 0, 3, "v")
	c := ackConsumer(t, b, group, []string{topic}, brook.WithRetryBackoff(50*time.Millisecond, 500*time.Millisecond),
		brook.WithAckFailureHandler(func(*brook.SettleError) {}))
	recs := ackTake(t, c, 3)
	before := c.Stats().SettleMessages
	reconnects := c.Stats().Reconnects

	b.Kill()
	// Until the consumer has seen its stream end, an ack may still go out on the
	// dead stream, whose outcome is then rightly unknown: wait for it, so the
	// acks are queued with no stream.
	deadline := time.Now().Add(20 * time.Second)
	for c.Stats().Reconnects <= reconnects {
		if time.Now().After(deadline) {
			t.Fatalf("the consumer did not see its stream end in 20 s: %+v", c.Stats())
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, r := range recs {
		if err := c.Ack(r); err != nil { // queued: no stream to send them on
			t.Fatal(err)
		}
	}
	b.launch(b.port)
	ackAwaitSettleMessages(t, c, before) // sent in the background on the new stream

	err := c.Flush(ackCtx(t))
	if err == nil {
		t.Fatal("Flush returned nil for acks the restarted broker refused")
	}
	ackRefusalCovers(t, err, topic, 0, 1, 2)
}

// A Flush that gave up waiting for the broker's answer returns those settles
// as of unknown outcome; when the answer comes later (here a refusal: the
// record is rejected and then acked), it goes to the failure handler, and no
// later Flush returns the same settles again.
func TestAckFlushDoesNotReturnASettleAgainThatAnEarlierFlushGaveUpOn(t *testing.T) {
	b := startBroker(t)
	c, r, _, handled := ackOneLeasedRecord(t, b)
	b.Freeze() // the message goes out; the broker answers only once thawed
	thawed := false
	defer func() {
		if !thawed {
			b.Thaw()
		}
	}()
	if err := c.Reject(r); err != nil {
		t.Fatal(err)
	}
	if err := c.Ack(r); err != nil {
		t.Fatal(err)
	}
	ackAwaitSettleMessages(t, c, 0)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	err := c.Flush(ctx)
	cancel()
	if !errors.Is(err, brook.ErrSettleOutcomeUnknown) {
		t.Fatalf("Flush with the broker frozen: %v, want ErrSettleOutcomeUnknown", err)
	}
	b.Thaw()
	thawed = true

	deadline := time.Now().Add(20 * time.Second)
	for len(handled()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the broker's later refusal never reached the failure handler")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := c.Flush(ackCtx(t)); err != nil {
		t.Errorf("the next Flush: %v, want nil (those settles were returned by the first Flush)", err)
	}
}
