package brook

import (
	"context"
	"fmt"
	"sync"
	"time"

	"google.golang.org/grpc"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

// Producer writes records to Brook. It is safe for concurrent use.
//
// Records are batched per partition (WithBatchBytes, WithLinger) and sent by
// one goroutine over one pipelined produce stream, several partitions per
// request and up to WithMaxInFlightPerPartition batches of a partition at
// once. By default it is idempotent: when the stream breaks (the broker
// restarted, or stayed silent for WithRequestTimeout) every unanswered batch
// is sent again with its sequence numbers on a new stream, and the broker
// writes none of them twice.
type Producer struct {
	cfg   producerConfig
	conn  *grpc.ClientConn
	owned bool
	meta  *producerMetadata
	acc   *accumulator
	stats producerCounters

	closeOnce sync.Once
	closing   chan struct{} // closed by Close: flush everything, accept nothing
	abort     chan struct{} // closed when Close's context ends: fail what is left
	done      chan struct{} // closed when the sender goroutine has ended
	cancel    context.CancelFunc
}

// NewProducer makes a producer. It validates every option at once (the error
// matches ErrInvalidConfig and names each bad option) and connects lazily:
// an unreachable broker shows in the records' results, not here.
func NewProducer(opts ...ProducerOption) (*Producer, error) {
	cfg := defaultProducerConfig()
	for _, o := range opts {
		o.applyProducer(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	conn, owned, err := cfg.conn.dial()
	if err != nil {
		return nil, fmt.Errorf("brook: producer: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Producer{
		cfg:     cfg,
		conn:    conn,
		owned:   owned,
		closing: make(chan struct{}),
		abort:   make(chan struct{}),
		done:    make(chan struct{}),
		cancel:  cancel,
	}
	p.meta = newProducerMetadata(brookv1.NewAdminServiceClient(conn), cfg.metadataMaxAge, cfg.backoffMin, cfg.backoffMax)
	p.acc = newAccumulator(&p.cfg)
	s := newSender(p, brookv1.NewProduceServiceClient(conn))
	go func() {
		defer close(p.done)
		s.run(ctx)
	}()
	return p, nil
}

// Produce hands a record to the producer and returns once it is buffered;
// promise (which may be nil) is called exactly once with the record (its
// Partition, Offset and Timestamp set on success) and the result. Promises
// are called one at a time from the producer's goroutine, in order per
// partition: they must not block for long, nor call Flush or Close.
//
// ctx bounds only the wait before the record is buffered (for the topic's
// partition count, and for buffer space when WithMaxBufferedBytes is reached,
// at most WithMaxBlock: then ErrBufferFull); once buffered, the record's
// time is bounded by WithDeliveryTimeout. A record whose ctx ended before it
// was buffered fails with an error matching ErrRecordNotSent and ctx's error.
//
// A record without a Timestamp gets the producer's clock now (as Kafka's
// producer does); a topic with message.timestamp.type=LogAppendTime stores
// the broker's append time instead, and the promise's record has that.
func (p *Producer) Produce(ctx context.Context, r *Record, promise func(*Record, error)) {
	if promise == nil {
		promise = func(*Record, error) {}
	}
	fail := func(err error) { // before the buffer: counted here, as the sender counts what fails later
		p.stats.failed(err, 1)
		promise(r, err)
	}
	size, err := p.checkRecord(r)
	if err != nil {
		fail(err)
		return
	}
	select {
	case <-p.closing:
		fail(ErrClientClosed)
		return
	default:
	}
	if err := ctx.Err(); err != nil {
		fail(notSentError(err, nil))
		return
	}
	if r.Timestamp.IsZero() {
		// The producer's clock, as Kafka's producer and the Java client stamp it (ms, as stored).
		r.Timestamp = time.UnixMilli(time.Now().UnixMilli())
	}
	deadline := time.Now().Add(p.cfg.maxBlock)
	blockCtx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	partitions, err := p.meta.partitions(blockCtx, r.Topic)
	if err == nil && p.cfg.manualPartitioner && r.Partition >= partitions {
		p.meta.forget(r.Topic) // partitions may have been added since the count was cached
		if partitions, err = p.meta.partitions(blockCtx, r.Topic); err == nil && r.Partition >= partitions {
			err = partitionError(brookv1.ErrorCode_ERROR_CODE_UNKNOWN_PARTITION,
				fmt.Sprintf("topic %s has %d partitions", r.Topic, partitions), r.Topic, r.Partition)
		}
	}
	if err != nil {
		fail(blockError(ctx, err))
		return
	}
	if !p.cfg.manualPartitioner && r.Key != nil {
		r.Partition = PartitionForKey(r.Key, partitions)
	}
	sticky := !p.cfg.manualPartitioner && r.Key == nil
	if err := p.acc.append(blockCtx, p.closing, r, size, promise, sticky, partitions); err != nil {
		fail(blockError(ctx, err))
	}
}

// blockError says why Produce gave up waiting: the caller's context (the
// record is not sent), or WithMaxBlock.
func blockError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return notSentError(ctx.Err(), err)
	}
	return err
}

// ProduceResult is one record's outcome of ProduceSync.
type ProduceResult struct {
	Record *Record
	Err    error
}

// ProduceResults are ProduceSync's outcomes, in the order of its records.
type ProduceResults []ProduceResult

// FirstErr is the first record's error, or nil if every record was written.
func (rs ProduceResults) FirstErr() error {
	for _, r := range rs {
		if r.Err != nil {
			return r.Err
		}
	}
	return nil
}

// Flush sends every buffered record without waiting for linger and waits
// until the records produced before it are answered (records produced
// meanwhile do not hold it up), or ctx ends. It must not be called from a promise.
func (p *Producer) Flush(ctx context.Context) error {
	gen := p.acc.beginFlush()
	defer p.acc.endFlush()
	for {
		done, progress := p.acc.flushed(gen)
		if done {
			return nil
		}
		select {
		case <-progress:
		case <-ctx.Done():
			return ctx.Err()
		case <-p.done:
			return ErrClientClosed
		}
	}
}

// Close stops accepting records, sends the buffered ones and waits for their
// answers until ctx ends; records still unanswered then fail with
// ErrClientClosed. It then ends the producer's goroutines and closes the
// connection it made (a connection given WithConn stays open).
func (p *Producer) Close(ctx context.Context) error {
	var err error
	p.closeOnce.Do(func() {
		close(p.closing)
		p.acc.wake()
		select {
		case <-p.done:
		case <-ctx.Done():
			err = ctx.Err()
			close(p.abort)
			p.cancel()
			<-p.done
		}
		p.cancel()
		if p.owned {
			if cerr := p.conn.Close(); cerr != nil && err == nil {
				err = cerr
			}
		}
	})
	return err
}

// checkRecord refuses a record the producer cannot send, and else returns its size in the buffer.
func (p *Producer) checkRecord(r *Record) (int, error) {
	switch {
	case r == nil:
		return 0, fmt.Errorf("%w: nil record", ErrInvalidRecord)
	case r.Topic == "":
		return 0, fmt.Errorf("%w: the record has no topic", ErrInvalidRecord)
	case p.cfg.manualPartitioner && r.Partition < 0:
		return 0, fmt.Errorf("%w: partition %d with WithManualPartitioner", ErrInvalidRecord, r.Partition)
	}
	size := recordSize(r)
	if size > p.cfg.maxRequestBytes {
		return 0, fmt.Errorf("%w: the record is about %d bytes, more than a request may hold (WithMaxRequestBytes %d)",
			ErrRecordTooLarge, size, p.cfg.maxRequestBytes)
	}
	return size, nil
}
