package tests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

func newProducer(t *testing.T, b *brokerProcess, opts ...brook.ProducerOption) *brook.Producer {
	t.Helper()
	p, err := brook.NewProducer(append([]brook.ProducerOption{brook.WithBroker(b.Addr())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	return p
}

func testCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// Keyed records land where Kafka's partitioner puts them, in order, with
// their headers (duplicates and order kept), keys (empty is not absent) and timestamps.
func TestProduceSyncWritesRecordsWhereKafkaWouldPartitionThem(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 3, nil)
	p := newProducer(t, b)
	ctx := testCtx(t, 60*time.Second)
	ts := time.UnixMilli(1_700_000_000_123)
	var records []*brook.Record
	for i := 0; i < 30; i++ {
		records = append(records, &brook.Record{
			Topic: topic, Key: []byte(fmt.Sprintf("key-%d", i%7)), Value: []byte(fmt.Sprintf("value-%d", i)),
			Headers:   []brook.Header{{Key: "h", Value: []byte("1")}, {Key: "h", Value: []byte("2")}, {Key: "bin", Value: []byte{0, 255}}},
			Timestamp: ts,
		})
	}
	records = append(records, &brook.Record{Topic: topic, Key: []byte{}, Value: []byte("empty key")})
	results := p.ProduceSync(ctx, records...)
	if err := results.FirstErr(); err != nil {
		t.Fatal(err)
	}
	perPartition := map[int32][]*brook.Record{}
	for _, r := range results {
		want := brook.PartitionForKey(r.Record.Key, 3)
		if r.Record.Partition != want {
			t.Fatalf("%s went to partition %d, Kafka's partitioner says %d", r.Record.Key, r.Record.Partition, want)
		}
		perPartition[want] = append(perPartition[want], r.Record)
	}
	for partition, sent := range perPartition {
		stored := b.fetchAll(t, topic, partition)
		if len(stored) != len(sent) {
			t.Fatalf("partition %d holds %d records, sent %d", partition, len(stored), len(sent))
		}
		for i, s := range stored {
			r := sent[i]
			if s.GetOffset() != r.Offset || !bytes.Equal(s.GetValue(), r.Value) || !bytes.Equal(s.GetKey(), r.Key) ||
				(s.Key == nil) != (r.Key == nil) {
				t.Fatalf("partition %d offset %d: stored %v, sent %+v", partition, i, s, r)
			}
			if len(r.Headers) > 0 {
				if len(s.GetHeaders()) != 3 || string(s.GetHeaders()[1].GetValue()) != "2" || !bytes.Equal(s.GetHeaders()[2].GetValue(), []byte{0, 255}) {
					t.Fatalf("headers stored as %v", s.GetHeaders())
				}
				if s.GetTimestampMs() != ts.UnixMilli() {
					t.Fatalf("timestamp %d, sent %d", s.GetTimestampMs(), ts.UnixMilli())
				}
			}
		}
	}
	if !perPartitionContainsEmptyKey(b, t, topic, results[len(results)-1].Record) {
		t.Fatal("the empty key was stored as no key")
	}
}

func perPartitionContainsEmptyKey(b *brokerProcess, t *testing.T, topic string, r *brook.Record) bool {
	stored := b.fetchAll(t, topic, r.Partition)
	s := stored[r.Offset]
	return s.Key != nil && len(s.Key) == 0
}

// Many goroutines produce at once; every promise is called once, offsets
// per partition are dense and in the order of each goroutine's records.
func TestConcurrentProduceCallsEveryPromiseOnceInOrder(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 4, nil)
	p := newProducer(t, b, brook.WithLinger(2*time.Millisecond), brook.WithBatchBytes(2048))
	ctx := testCtx(t, 90*time.Second)
	const goroutines, each = 8, 500
	var calls atomic.Int64
	var mu sync.Mutex
	offsets := map[string][]int64{} // key -> offsets in produce order
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*each)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			key := fmt.Sprintf("g%d", g)
			for i := 0; i < each; i++ {
				p.Produce(ctx, &brook.Record{Topic: topic, Key: []byte(key), Value: []byte(fmt.Sprint(i))},
					func(r *brook.Record, err error) {
						calls.Add(1)
						if err != nil {
							errs <- err
							return
						}
						mu.Lock()
						offsets[key] = append(offsets[key], r.Offset)
						mu.Unlock()
					})
			}
		}(g)
	}
	wg.Wait()
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if calls.Load() != goroutines*each {
		t.Fatalf("%d promise calls for %d records", calls.Load(), goroutines*each)
	}
	total := 0
	for key, offs := range offsets {
		for i := 1; i < len(offs); i++ {
			if offs[i] <= offs[i-1] {
				t.Fatalf("%s: offsets out of order: %v", key, offs[i-1:i+1])
			}
		}
		total += len(offs)
	}
	stored := 0
	for partition := int32(0); partition < 4; partition++ {
		stored += len(b.fetchAll(t, topic, partition))
	}
	if stored != goroutines*each || total != stored {
		t.Fatalf("stored %d, acknowledged %d, produced %d", stored, total, goroutines*each)
	}
}

// Keyless records fill one partition's batch, then the next: every partition gets some.
func TestKeylessRecordsSpreadOverPartitionsABatchAtATime(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 3, nil)
	p := newProducer(t, b, brook.WithBatchBytes(1024), brook.WithLinger(50*time.Millisecond))
	ctx := testCtx(t, 60*time.Second)
	var records []*brook.Record
	for i := 0; i < 300; i++ {
		records = append(records, &brook.Record{Topic: topic, Value: bytes.Repeat([]byte("x"), 40)})
	}
	if err := p.ProduceSync(ctx, records...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	for partition := int32(0); partition < 3; partition++ {
		n := len(b.fetchAll(t, topic, partition))
		if n < 30 {
			t.Fatalf("partition %d got %d of 300 keyless records", partition, n)
		}
	}
}

func TestManualPartitionerWritesToTheRecordsPartition(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 3, nil)
	p := newProducer(t, b, brook.WithManualPartitioner())
	ctx := testCtx(t, 30*time.Second)
	res := p.ProduceSync(ctx, &brook.Record{Topic: topic, Partition: 2, Key: []byte("k"), Value: []byte("v")})
	if err := res.FirstErr(); err != nil {
		t.Fatal(err)
	}
	if got := b.fetchAll(t, topic, 2); len(got) != 1 || string(got[0].GetValue()) != "v" {
		t.Fatalf("partition 2 holds %v", got)
	}
	res = p.ProduceSync(ctx, &brook.Record{Topic: topic, Partition: 7, Value: []byte("v")})
	if err := res.FirstErr(); !errors.Is(err, brook.ErrUnknownPartition) {
		t.Fatalf("partition 7 of 3: %v", err)
	}
}

func TestBrokerErrorsMatchSentinelsAndLeaveOtherRecordsAlone(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 1, map[string]string{"max.record.bytes": "1024"})
	p := newProducer(t, b)
	ctx := testCtx(t, 60*time.Second)

	res := p.ProduceSync(ctx, &brook.Record{Topic: "no-such-topic-" + topic, Value: []byte("v")})
	if err := res.FirstErr(); !errors.Is(err, brook.ErrUnknownTopic) {
		t.Fatalf("unknown topic: %v", err)
	}
	var be *brook.BrokerError
	if !errors.As(res.FirstErr(), &be) || be.Reason != "UNKNOWN_TOPIC" {
		t.Fatalf("errors.As: %+v", be)
	}

	// One record too large in the middle: it fails alone, the others are written in order.
	var records []*brook.Record
	for i := 0; i < 10; i++ {
		v := []byte(fmt.Sprint(i))
		if i == 5 {
			v = bytes.Repeat([]byte("x"), 4096)
		}
		records = append(records, &brook.Record{Topic: topic, Value: v})
	}
	results := p.ProduceSync(ctx, records...)
	for i, r := range results {
		if i == 5 {
			if !errors.Is(r.Err, brook.ErrRecordTooLarge) {
				t.Fatalf("record 5: %v", r.Err)
			}
		} else if r.Err != nil {
			t.Fatalf("record %d: %v", i, r.Err)
		}
	}
	stored := b.fetchAll(t, topic, 0)
	if len(stored) != 9 {
		t.Fatalf("%d records stored, want 9", len(stored))
	}
	for i, s := range stored {
		want := i
		if i >= 5 {
			want = i + 1
		}
		if string(s.GetValue()) != fmt.Sprint(want) {
			t.Fatalf("offset %d holds %q, want %d", i, s.GetValue(), want)
		}
	}
	// The producer goes on after the failure (its sequence numbers were renumbered).
	if err := p.ProduceSync(ctx, &brook.Record{Topic: topic, Value: []byte("after")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

func TestInvalidOptionsAreAllNamedInOneError(t *testing.T) {
	_, err := brook.NewProducer(brook.WithBroker("nohostport"), brook.WithBatchBytes(0), brook.WithLinger(-time.Second),
		brook.WithMaxInFlightPerPartition(9), brook.WithKeepalive(time.Second))
	if !errors.Is(err, brook.ErrInvalidConfig) {
		t.Fatalf("got %v", err)
	}
	var ce *brook.ConfigError
	if !errors.As(err, &ce) || len(ce.Problems) != 5 {
		t.Fatalf("want 5 problems, got %v", err)
	}
	for _, name := range []string{"WithBroker", "WithBatchBytes", "WithLinger", "WithMaxInFlightPerPartition", "WithKeepalive"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("%q does not name %s", err, name)
		}
	}
	if _, err := brook.NewProducer(); !errors.Is(err, brook.ErrInvalidConfig) || !strings.Contains(err.Error(), "WithBroker") {
		t.Fatalf("no broker: %v", err)
	}
}

// Flush waits for the records produced before it, not for a moment when
// nothing is buffered: other goroutines producing all along do not hold it up.
func TestFlushReturnsWhileOthersKeepProducing(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 2, nil)
	p := newProducer(t, b, brook.WithLinger(20*time.Millisecond))
	ctx := testCtx(t, 60*time.Second)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2_000_000; i++ { // bounded; stopped long before
				select {
				case <-stop:
					return
				default:
				}
				p.Produce(ctx, &brook.Record{Topic: topic, Value: []byte("busy")}, nil)
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()
	var firstErr error
	var answered atomic.Bool
	p.Produce(ctx, &brook.Record{Topic: topic, Value: []byte("before flush")}, func(_ *brook.Record, err error) {
		firstErr = err
		answered.Store(true)
	})
	flushCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := p.Flush(flushCtx); err != nil {
		t.Fatalf("Flush while others produce: %v", err)
	}
	if !answered.Load() || firstErr != nil {
		t.Fatalf("Flush returned before the record produced before it was answered (answered %v, err %v)",
			answered.Load(), firstErr)
	}
}

// A record larger than a request may hold fails at once, alone.
func TestARecordLargerThanARequestFailsAtOnce(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 1, nil)
	p := newProducer(t, b, brook.WithMaxRequestBytes(64<<10))
	ctx := testCtx(t, 30*time.Second)
	results := p.ProduceSync(ctx,
		&brook.Record{Topic: topic, Value: []byte("small")},
		&brook.Record{Topic: topic, Value: make([]byte, 100<<10)},
		&brook.Record{Topic: topic, Value: []byte("small too")})
	if !errors.Is(results[1].Err, brook.ErrRecordTooLarge) {
		t.Fatalf("the large record: %v", results[1].Err)
	}
	if results[0].Err != nil || results[2].Err != nil {
		t.Fatalf("the small ones: %v, %v", results[0].Err, results[2].Err)
	}
	if got := len(b.fetchAll(t, topic, 0)); got != 2 {
		t.Fatalf("%d records stored, want 2", got)
	}
}
