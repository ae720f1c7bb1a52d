package tests

import (
	"context"
	"testing"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

// Every client takes WithLogger and logs there what it does not return: here
// across a broker that goes away and comes back, one line per event (the
// producer's break and return, the consumer's reset of a position out of range, the ack
// consumer's stream ending and coming back).
func TestEveryClientLogsToWithLogger(t *testing.T) {
	b := startBroker(t)
	topic := b.createTopic(t, 1, nil)
	admin := ackAdmin(t, b)
	group := ackGroup(t, admin)
	logs, logger := newLogCapture()
	p := newProducer(t, b, brook.WithLogger(logger), brook.WithRetryBackoff(20*time.Millisecond, 200*time.Millisecond))
	c := consumerNew(t, brook.WithBroker(b.Addr()), brook.WithResetPosition(brook.Earliest), brook.WithLogger(logger))
	tp := brook.TopicPartition{Topic: topic, Partition: 0}
	if err := c.Assign(tp); err != nil {
		t.Fatal(err)
	}
	a := ackConsumer(t, b, group, []string{topic}, brook.WithLogger(logger),
		brook.WithRetryBackoff(20*time.Millisecond, 200*time.Millisecond))
	ctx := testCtx(t, 2*time.Minute)
	if err := p.ProduceSync(ctx, &brook.Record{Topic: topic, Value: []byte("1")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if err := c.Seek(tp, 1000); err != nil { // beyond the end: the consumer resets to the beginning, and says so
		t.Fatal(err)
	}
	consumerPollN(t, c, 1, time.Minute)
	ackTake(t, a, 1)

	b.Stop()
	short, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if err := p.ProduceSync(short, &brook.Record{Topic: topic, Value: []byte("lost")}).FirstErr(); err == nil {
		t.Fatal("produced with the broker down")
	}
	b.launch(b.port)
	if err := p.ProduceSync(ctx, &brook.Record{Topic: topic, Value: []byte("2")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	ackTake(t, a, 1)

	for _, want := range [][]string{
		{"level=INFO", "brook: producer:", "reason="},
		{"level=INFO", "brook: producer: the broker answers again"},
		{"level=WARN", "brook: position out of range; resetting", "offset=1000"},
		{"level=INFO", "brook: ack consumer: the stream ended; opening it again"},
		{"level=INFO", "brook: ack consumer: receiving again"},
	} {
		if len(logs.lines(want...)) == 0 {
			t.Errorf("no line with %q; the log:\n%s", want, logs)
		}
	}
	// One line per event, not per record or per try: the producer's Info lines are few.
	if n := len(logs.lines("level=INFO", "brook: producer:")); n > 6 {
		t.Errorf("%d Info lines of the producer for one outage:\n%s", n, logs)
	}
}
