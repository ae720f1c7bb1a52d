package tests

import (
	"testing"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

// A record produced without a timestamp carries the producer's clock at
// Produce, as the Java client's, Kafka's and franz-go's: it reads back with a
// timestamp between just before and just after the call. A topic with
// LogAppendTime stores the broker's append time over it, and the producer's
// answer says the same.
func TestARecordWithoutTimestampGetsTheProducersClock(t *testing.T) {
	b := sharedBroker
	create := b.createTopic(t, 1, nil)
	appendTime := b.createTopic(t, 1, map[string]string{"message.timestamp.type": "LogAppendTime"})
	p := newProducer(t, b)
	ctx := testCtx(t, 60*time.Second)
	for _, topic := range []string{create, appendTime} { // the partition counts are cached now
		if err := p.ProduceSync(ctx, &brook.Record{Topic: topic, Value: []byte("warm"), Timestamp: time.UnixMilli(1)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	// The producer holds the record for its linger (here 300 ms) before it
	// sends it, so a broker's stamp would come after the call returned.
	lingering := newProducer(t, b, brook.WithLinger(300*time.Millisecond))
	if err := lingering.ProduceSync(ctx, &brook.Record{Topic: create, Value: []byte("warm")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	before := time.Now().Truncate(time.Millisecond)
	produced := make(chan *brook.Record, 1)
	lingering.Produce(ctx, &brook.Record{Topic: create, Value: []byte("now")}, func(r *brook.Record, err error) {
		if err != nil {
			t.Error(err)
		}
		produced <- r
	})
	after := time.Now()
	r := <-produced
	stored := b.fetchAll(t, create, 0)[r.Offset]
	if ts := time.UnixMilli(stored.GetTimestampMs()); ts.Before(before) || ts.After(after) {
		t.Fatalf("stored timestamp %v, want within Produce's call [%v, %v]", ts, before, after)
	}
	if r.Timestamp.UnixMilli() != stored.GetTimestampMs() {
		t.Fatalf("the record says %v, the broker stored %d", r.Timestamp, stored.GetTimestampMs())
	}

	res := p.ProduceSync(ctx, &brook.Record{Topic: appendTime, Value: []byte("x"), Timestamp: time.UnixMilli(1)},
		&brook.Record{Topic: appendTime, Value: []byte("y")})
	if err := res.FirstErr(); err != nil {
		t.Fatal(err)
	}
	for _, got := range res {
		s := b.fetchAll(t, appendTime, 0)[got.Record.Offset]
		if s.GetTimestampMs() <= 1 || got.Record.Timestamp.UnixMilli() != s.GetTimestampMs() {
			t.Fatalf("LogAppendTime topic: the record says %v, the broker stored %d", got.Record.Timestamp, s.GetTimestampMs())
		}
	}
}
