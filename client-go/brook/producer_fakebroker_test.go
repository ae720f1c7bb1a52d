package brook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

// fakeBroker is an in-process ProduceService that checks idempotent
// sequences the way Brook's broker does (a duplicate of one of the last five
// batches is answered with its first offsets, a gap is OUT_OF_ORDER_SEQUENCE,
// a newer epoch starts at 0), keeps the log in memory, and lets a test delay
// answers, refuse batches, stop reading or break streams.
type fakeBroker struct {
	brookv1.UnimplementedProduceServiceServer
	brookv1.UnimplementedAdminServiceServer
	addr string

	mu      sync.Mutex
	epoch   int32
	log     map[TopicPartition][]string // values, by offset
	state   map[TopicPartition]*fakeSeqState
	streams int
	// Test hooks, read under mu: answerDelay delays every answer; onBatch may
	// answer a batch with an error code instead of appending it; breakBefore
	// may end the stream (with a status) before a request is processed;
	// stallStream makes a stream read nothing at all.
	answerDelay time.Duration
	onBatch     func(tp TopicPartition, values []string) brookv1.ErrorCode
	breakBefore func(req *brookv1.ProduceRequest) error
	stallStream func(n int) bool
	// olderBroker: a broker before ProduceBatch.kafka_batch, which drops the
	// field unread, refuses the batch as empty and does not say reads_kafka_batch.
	olderBroker bool
}

type fakeSeqState struct {
	epoch int32
	next  int32
	last  []fakeBatch // the last five
}

type fakeBatch struct {
	first, count int32
	base         int64
}

func startFakeBroker(t *testing.T) *fakeBroker {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeBroker{addr: lis.Addr().String(), log: map[TopicPartition][]string{}, state: map[TopicPartition]*fakeSeqState{}}
	srv := grpc.NewServer()
	brookv1.RegisterProduceServiceServer(srv, f)
	brookv1.RegisterAdminServiceServer(srv, f)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return f
}

func (f *fakeBroker) DescribeTopic(_ context.Context, req *brookv1.DescribeTopicRequest) (*brookv1.DescribeTopicResponse, error) {
	return &brookv1.DescribeTopicResponse{Topic: &brookv1.TopicDescription{Name: req.GetName(),
		Partitions: []*brookv1.PartitionDescription{{Partition: 0}, {Partition: 1}}}}, nil
}

func (f *fakeBroker) InitProducer(_ context.Context, req *brookv1.InitProducerRequest) (*brookv1.InitProducerResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if req.ProducerId != nil {
		f.epoch++
	}
	return &brookv1.InitProducerResponse{ProducerId: 7, ProducerEpoch: f.epoch}, nil
}

func (f *fakeBroker) ProduceStream(stream brookv1.ProduceService_ProduceStreamServer) error {
	f.mu.Lock()
	f.streams++
	n := f.streams
	stall := f.stallStream != nil && f.stallStream(n)
	f.mu.Unlock()
	if stall {
		<-stream.Context().Done() // read nothing: the client's sends block on flow control
		return stream.Context().Err()
	}
	for {
		req, err := stream.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		f.mu.Lock()
		breakBefore, delay := f.breakBefore, f.answerDelay
		f.mu.Unlock()
		if breakBefore != nil {
			if err := breakBefore(req.GetRequest()); err != nil {
				return err
			}
		}
		resp := f.produce(req.GetRequest())
		if delay > 0 {
			time.Sleep(delay)
		}
		if err := stream.Send(&brookv1.ProduceStreamResponse{CorrelationId: req.GetCorrelationId(), Response: resp}); err != nil {
			return err
		}
	}
}

func (f *fakeBroker) produce(req *brookv1.ProduceRequest) *brookv1.ProduceResponse {
	f.mu.Lock()
	defer f.mu.Unlock()
	resp := &brookv1.ProduceResponse{ReadsKafkaBatch: !f.olderBroker}
	for i, b := range req.GetBatches() {
		tp := TopicPartition{b.GetTopic(), b.GetPartition()}
		if f.olderBroker && len(b.GetRecords()) == 0 {
			resp.Results = append(resp.Results, &brookv1.ProduceResult{BatchIndex: int32(i), Topic: tp.Topic,
				Partition: tp.Partition, ErrorCode: brookv1.ErrorCode_ERROR_CODE_INVALID_RECORD,
				ErrorMessage: "empty batch for " + tp.Topic + ": a produce request needs at least one record"})
			continue
		}
		values := batchValues(b)
		res := &brookv1.ProduceResult{BatchIndex: int32(i), Topic: tp.Topic, Partition: tp.Partition, RecordCount: int32(len(values))}
		resp.Results = append(resp.Results, res)
		if f.onBatch != nil {
			if code := f.onBatch(tp, values); code != brookv1.ErrorCode_ERROR_CODE_UNSPECIFIED {
				res.ErrorCode = code
				continue
			}
		}
		st := f.state[tp]
		if st == nil || req.GetProducerEpoch() > st.epoch {
			st = &fakeSeqState{epoch: req.GetProducerEpoch()}
			f.state[tp] = st
		}
		seq := b.GetBaseSequence()
		if req.GetProducerEpoch() < st.epoch {
			res.ErrorCode = brookv1.ErrorCode_ERROR_CODE_PRODUCER_FENCED
			continue
		}
		duplicate := false
		for _, old := range st.last {
			if old.first == seq && old.count == int32(len(values)) {
				res.BaseOffset, res.Duplicate, duplicate = old.base, true, true
			}
		}
		if duplicate {
			continue
		}
		if seq != st.next {
			res.ErrorCode = brookv1.ErrorCode_ERROR_CODE_OUT_OF_ORDER_SEQUENCE
			res.ErrorMessage = fmt.Sprintf("expected %d, got %d", st.next, seq)
			continue
		}
		res.BaseOffset = int64(len(f.log[tp]))
		f.log[tp] = append(f.log[tp], values...)
		st.last = append(st.last, fakeBatch{first: seq, count: int32(len(values)), base: res.BaseOffset})
		if len(st.last) > 5 {
			st.last = st.last[1:]
		}
		st.next = seqAdd(seq, len(values))
	}
	return resp
}

func (f *fakeBroker) set(fn func(f *fakeBroker)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

// outcome is what the promises said.
type outcome struct {
	mu      sync.Mutex
	ok      map[string]TopicPartition // value -> partition, for records reported written
	offsets map[string]int64
	errs    map[string]error
	wg      sync.WaitGroup
}

func newOutcome() *outcome {
	return &outcome{ok: map[string]TopicPartition{}, offsets: map[string]int64{}, errs: map[string]error{}}
}

func (o *outcome) produce(ctx context.Context, p *Producer, topic string, partition int32, value string) {
	o.wg.Add(1)
	p.Produce(ctx, &Record{Topic: topic, Partition: partition, Value: []byte(value)}, func(r *Record, err error) {
		o.mu.Lock()
		if err != nil {
			o.errs[value] = err
		} else {
			o.ok[value] = TopicPartition{r.Topic, r.Partition}
			o.offsets[value] = r.Offset
		}
		o.mu.Unlock()
		o.wg.Done()
	})
}

// check: every record reported written is in the log once, at the offset
// its promise was given; nothing is in the log that was not produced.
func (o *outcome) check(t *testing.T, f *fakeBroker) {
	t.Helper()
	o.wg.Wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	o.mu.Lock()
	defer o.mu.Unlock()
	for value, tp := range o.ok {
		log := f.log[tp]
		off := o.offsets[value]
		if off < 0 || off >= int64(len(log)) || log[off] != value {
			t.Errorf("%q was reported written at %v offset %d, but the log holds %q there", value, tp, off, at(log, off))
		}
	}
	seen := map[string]bool{}
	for _, log := range f.log {
		for _, v := range log {
			if seen[v] {
				t.Errorf("%q is in the log twice", v)
			}
			seen[v] = true
		}
	}
}

func at(log []string, off int64) string {
	if off < 0 || off >= int64(len(log)) {
		return "<nothing>"
	}
	return log[off]
}

func fakeProducer(t *testing.T, f *fakeBroker, opts ...ProducerOption) *Producer {
	t.Helper()
	p, err := NewProducer(append([]ProducerOption{WithBroker(f.addr), WithManualPartitioner(),
		WithRetryBackoff(10*time.Millisecond, 50*time.Millisecond)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = p.Close(ctx)
	})
	return p
}

// A batch that expires in the queue while another is in flight used no
// sequence numbers: the batches after it must not reuse the in-flight one's
// (the broker would take them for its duplicate and they would be lost).
func TestExpiryInTheQueueDoesNotReuseSequenceNumbers(t *testing.T) {
	f := startFakeBroker(t)
	f.set(func(f *fakeBroker) { f.answerDelay = 400 * time.Millisecond })
	p := fakeProducer(t, f, WithMaxInFlightPerPartition(1), WithLinger(0), WithRequestTimeout(500*time.Millisecond),
		WithDeliveryTimeout(600*time.Millisecond))
	ctx := context.Background()
	o := newOutcome()
	start := time.Now()
	for i := 0; i < 3; i++ { // one in flight, the next sent at its answer, the last waits and expires
		o.produce(ctx, p, "t", 0, fmt.Sprintf("early-%d", i))
		time.Sleep(20 * time.Millisecond)
	}
	// At 700 ms early-1 is in flight (answered at about 800) and early-2 expired:
	// a record for another partition wakes the sender, which notices it then.
	time.Sleep(700*time.Millisecond - time.Since(start))
	o.produce(ctx, p, "t", 1, "wake")
	o.wg.Wait()
	f.set(func(f *fakeBroker) { f.answerDelay = 0 })
	for i := 0; i < 5; i++ {
		o.produce(ctx, p, "t", 0, fmt.Sprintf("late-%d", i))
	}
	o.check(t, f)
	for i := 0; i < 5; i++ {
		if err := o.errs[fmt.Sprintf("late-%d", i)]; err != nil {
			t.Errorf("late-%d: %v", i, err)
		}
	}
	if len(o.errs) == 0 {
		t.Fatal("no record expired: the scenario did not happen")
	}
}

// A partition paused by a retriable error whose other batch was in flight
// when the stream broke goes on once the stream is back.
func TestAPausedPartitionResumesAfterTheStreamBreaks(t *testing.T) {
	f := startFakeBroker(t)
	refused := false
	f.set(func(f *fakeBroker) {
		f.onBatch = func(_ TopicPartition, values []string) brookv1.ErrorCode {
			if values[0] == "a" && !refused {
				refused = true
				return brookv1.ErrorCode_ERROR_CODE_NOT_ENOUGH_DISK // retriable: pauses the partition
			}
			return brookv1.ErrorCode_ERROR_CODE_UNSPECIFIED
		}
		f.breakBefore = func(req *brookv1.ProduceRequest) error {
			if refused && len(req.GetBatches()) > 0 && batchValues(req.GetBatches()[0])[0] == "b" {
				f.breakBefore = nil // once
				return status.Error(codes.Unavailable, "going away")
			}
			return nil
		}
	})
	p := fakeProducer(t, f, WithBatchBytes(1), WithLinger(0), WithDeliveryTimeout(time.Hour))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	o := newOutcome()
	o.produce(ctx, p, "t", 0, "a")
	o.produce(ctx, p, "t", 0, "b")
	o.produce(ctx, p, "t", 0, "c")
	if err := p.Flush(ctx); err != nil {
		t.Fatalf("flush: %v (the partition stayed paused)", err)
	}
	o.check(t, f)
	if len(o.ok) != 3 {
		t.Fatalf("written %v, failed %v", o.ok, o.errs)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if got := fmt.Sprint(f.log[TopicPartition{"t", 0}]); got != "[a b c]" {
		t.Fatalf("log %s, want [a b c] in order", got)
	}
}

// A request the broker ends the stream at every time (here: a reset, as for
// a request over its max.request.bytes) is halved until its record fails
// alone; the others are written once, in order.
func TestARequestThatAlwaysBreaksTheStreamFailsAlone(t *testing.T) {
	f := startFakeBroker(t)
	f.set(func(f *fakeBroker) {
		f.breakBefore = func(req *brookv1.ProduceRequest) error {
			for _, b := range req.GetBatches() {
				for _, v := range batchValues(b) {
					if v == "poison" {
						return status.Error(codes.Canceled, "stream reset")
					}
				}
			}
			return nil
		}
	})
	p := fakeProducer(t, f, WithLinger(20*time.Millisecond), WithDeliveryTimeout(time.Hour))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	o := newOutcome()
	for _, v := range []string{"v1", "v2", "poison", "v3", "v4"} {
		o.produce(ctx, p, "t", 0, v)
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	o.check(t, f)
	if err := o.errs["poison"]; !errorsIs(err, ErrRequestTooLarge) {
		t.Fatalf("poison: %v", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if got := fmt.Sprint(f.log[TopicPartition{"t", 0}]); got != "[v1 v2 v3 v4]" {
		t.Fatalf("log %s, want [v1 v2 v3 v4]", got)
	}
}

// A broker that reads nothing blocks Send on flow control: the request
// timeout still ends the stream, the records go on a new one.
func TestABrokerThatReadsNothingDoesNotHangTheProducer(t *testing.T) {
	f := startFakeBroker(t)
	f.set(func(f *fakeBroker) { f.stallStream = func(n int) bool { return n == 1 } })
	p := fakeProducer(t, f, WithRequestTimeout(300*time.Millisecond), WithDeliveryTimeout(time.Hour),
		WithLinger(0), WithBatchBytes(64<<10))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	o := newOutcome()
	value := string(make([]byte, 32<<10))
	for i := 0; i < 40; i++ { // 1.3 MB: more than the stream's flow-control window
		o.produce(ctx, p, "t", int32(i%2), fmt.Sprintf("%03d%s", i, value))
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatalf("flush: %v", err)
	}
	o.check(t, f)
	if len(o.ok) != 40 {
		t.Fatalf("%d written, errors %v", len(o.ok), o.errs)
	}
}

func TestSequencesWrapAt2To31(t *testing.T) {
	if got := seqAdd(1<<31-1, 1); got != 0 {
		t.Fatalf("MaxInt32 + 1 = %d, want 0", got)
	}
	if got := seqAdd(1<<31-3, 10); got != 7 {
		t.Fatalf("got %d, want 7", got)
	}
}

// Batches put back keep their partition's order, the halves of a split too.
func TestPutBackKeepsTheOrder(t *testing.T) {
	q := &partitionQueue{}
	a := &producerBatch{pos: 0, width: 1}
	b := &producerBatch{pos: 1, width: 1}
	c := &producerBatch{pos: 2, width: 1}
	q.queue = []*producerBatch{c}
	q.putBack(b)
	q.putBack(a)
	halves := b.split()
	q.queue = []*producerBatch{a, c}
	q.putBack(halves[1])
	q.putBack(halves[0])
	got := []*producerBatch{a, halves[0], halves[1], c}
	for i := range got {
		if q.queue[i] != got[i] {
			t.Fatalf("position %d holds pos %v, want %v", i, q.queue[i].pos, got[i].pos)
		}
	}
}

// Keyless records move to the next partition when their batch is sent after
// linger, not only when it fills, so a slow producer still spreads them.
func TestKeylessRecordsMoveOnWhenTheirBatchLingeredOut(t *testing.T) {
	cfg := defaultProducerConfig()
	a := newAccumulator(&cfg)
	ctx := context.Background()
	seen := map[int32]bool{}
	now := time.Now()
	for i := 0; i < 8; i++ {
		r := &Record{Topic: "t", Value: []byte("x")}
		if err := a.append(ctx, nil, r, recordSize(r), nil, true, 4); err != nil {
			t.Fatal(err)
		}
		seen[r.Partition] = true
		now = now.Add(time.Second) // past linger: the batch is drained
		a.drain(now, false, 0, false)
	}
	if len(seen) != 4 {
		t.Fatalf("8 keyless records, one per linger, went to partitions %v", seen)
	}
}

func errorsIs(err, target error) bool { return err != nil && errors.Is(err, target) }

// A broker older than kafka_batch refuses the first batch as empty without
// saying reads_kafka_batch: an uncompressing producer sends it and every
// later batch as listed records, each written once; a compressing one fails
// its records saying why, and nothing is written.
func TestAnOlderBrokerGetsListedRecordsOrAClearFailureWhenCompressing(t *testing.T) {
	f := startFakeBroker(t)
	f.set(func(f *fakeBroker) { f.olderBroker = true })
	p, err := NewProducer(WithBroker(f.addr), WithLinger(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	o := newOutcome()
	for i := 0; i < 50; i++ {
		o.produce(context.Background(), p, "t", 0, fmt.Sprint("r", i))
	}
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	o.check(t, f)
	if len(o.ok) != 50 || len(o.errs) != 0 {
		t.Fatalf("%d written, errors %v", len(o.ok), o.errs)
	}

	zstd, err := NewProducer(WithBroker(f.addr), WithCompression(CompressionZstd))
	if err != nil {
		t.Fatal(err)
	}
	o = newOutcome()
	o.produce(context.Background(), zstd, "t", 1, "compressed")
	if err := zstd.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	o.check(t, f)
	if err := o.errs["compressed"]; !errors.Is(err, ErrInvalidRecord) || !strings.Contains(err.Error(), "predates compressed batches") {
		t.Fatalf("compressed record against an older broker: %v", err)
	}
}
