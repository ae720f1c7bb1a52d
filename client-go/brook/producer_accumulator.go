package brook

import (
	"context"
	"sync"
	"time"
)

// recordOverhead approximates a record's framing on the wire (offset,
// timestamp, lengths), so that many tiny records still fill a batch.
const recordOverhead = 24

// pendingRecord is a record waiting for its answer.
type pendingRecord struct {
	rec     *Record
	promise func(*Record, error)
	size    int
}

// producerBatch is records for one partition, sent and answered together.
type producerBatch struct {
	tp       TopicPartition
	records  []pendingRecord
	bytes    int
	created  time.Time
	deadline time.Time // created + delivery timeout
	baseSeq  int32
	hasSeq   bool // baseSeq is assigned (kept across retries)
	sent     bool // sent at least once: the broker may have written it
}

// partitionQueue is one partition's batches: the one filling, and the closed
// ones in order, not in flight.
type partitionQueue struct {
	tp       TopicPartition
	open     *producerBatch
	queue    []*producerBatch
	inFlight int
	nextSeq  int32 // the sequence the next batch sent for the first time gets
	// ackedNext is the sequence after the last acknowledged batch: what the broker expects next.
	ackedNext int32
	// paused after a failed batch: nothing more is sent until the batches in
	// flight are back, then the queue is renumbered from nextSeq.
	paused    bool
	notBefore time.Time // retry backoff after a retriable error
}

// accumulator holds the records not yet answered: the producer's buffer.
// Produce adds to it; the sender goroutine takes batches from it.
type accumulator struct {
	cfg *producerConfig

	mu          sync.Mutex
	partitions  map[TopicPartition]*partitionQueue
	order       []*partitionQueue // stable order for fair draining
	rr          int               // where the next drain starts in order
	sticky      map[string]int32  // keyless records: each topic's current partition
	buffered    int64             // bytes of records not answered
	outstanding int               // records not answered
	flushing    int
	spaceFreed  chan struct{} // closed (and replaced) when bytes are released
	idleCh      chan struct{} // closed while outstanding == 0
	wakeCh      chan struct{} // wakes the sender
}

func newAccumulator(cfg *producerConfig) *accumulator {
	idle := make(chan struct{})
	close(idle)
	return &accumulator{
		cfg:        cfg,
		partitions: map[TopicPartition]*partitionQueue{},
		sticky:     map[string]int32{},
		spaceFreed: make(chan struct{}),
		idleCh:     idle,
		wakeCh:     make(chan struct{}, 1),
	}
}

func recordSize(r *Record) int {
	n := recordOverhead + len(r.Key) + len(r.Value)
	for _, h := range r.Headers {
		n += 8 + len(h.Key) + len(h.Value)
	}
	return n
}

// append buffers a record, waiting for space until ctx ends or the producer
// closes. For a keyless record (sticky true) it chooses the partition: the
// topic's current sticky partition, or the next one when the record does not
// fit in that partition's batch, so that keyless records fill one partition's
// batch after another (as Kafka's producer does).
func (a *accumulator) append(ctx context.Context, closing <-chan struct{}, r *Record, promise func(*Record, error),
	sticky bool, partitions int32) error {
	size := recordSize(r)
	a.mu.Lock()
	for a.buffered > 0 && a.buffered+int64(size) > a.cfg.maxBufferedBytes {
		freed := a.spaceFreed
		a.mu.Unlock()
		select {
		case <-freed:
		case <-closing:
			return ErrClientClosed
		case <-ctx.Done():
			return ErrBufferFull
		}
		a.mu.Lock()
	}
	select {
	case <-closing:
		a.mu.Unlock()
		return ErrClientClosed
	default:
	}
	wake := false
	if sticky {
		cur, ok := a.sticky[r.Topic]
		if !ok {
			cur = int32(len(a.sticky)) // spread the topics' starting points
		}
		cur %= partitions
		if q := a.partitions[TopicPartition{r.Topic, cur}]; q != nil && q.open != nil && a.overflows(q.open, size) {
			a.closeBatch(q)
			wake = true
			cur = (cur + 1) % partitions
		}
		a.sticky[r.Topic] = cur
		r.Partition = cur
	}
	tp := TopicPartition{Topic: r.Topic, Partition: r.Partition}
	q := a.partitions[tp]
	if q == nil {
		q = &partitionQueue{tp: tp}
		a.partitions[tp] = q
		a.order = append(a.order, q)
	}
	if q.open != nil && a.overflows(q.open, size) {
		a.closeBatch(q)
		wake = true
	}
	if q.open == nil {
		now := time.Now()
		q.open = &producerBatch{tp: tp, created: now, deadline: now.Add(a.cfg.deliveryTimeout)}
		wake = true // a new linger deadline the sender must know of
	}
	q.open.records = append(q.open.records, pendingRecord{rec: r, promise: promise, size: size})
	q.open.bytes += size
	if q.open.bytes >= a.cfg.batchBytes {
		a.closeBatch(q)
		wake = true
		if sticky {
			a.sticky[r.Topic] = (r.Partition + 1) % partitions
		}
	}
	a.buffered += int64(size)
	if a.outstanding == 0 {
		a.idleCh = make(chan struct{})
	}
	a.outstanding++
	a.mu.Unlock()
	if wake || a.cfg.linger == 0 {
		a.wake()
	}

	return nil
}

// overflows: the record does not fit in the batch (a batch always takes its first record).
func (a *accumulator) overflows(b *producerBatch, size int) bool {
	return len(b.records) > 0 && b.bytes+size > a.cfg.batchBytes
}

// closeBatch moves the partition's open batch to its queue.
func (a *accumulator) closeBatch(q *partitionQueue) {
	q.queue = append(q.queue, q.open)
	q.open = nil
}

// wake makes the sender look at the accumulator again.
func (a *accumulator) wake() {
	select {
	case a.wakeCh <- struct{}{}:
	default:
	}
}

func (a *accumulator) beginFlush() {
	a.mu.Lock()
	a.flushing++
	a.mu.Unlock()
	a.wake()
}

func (a *accumulator) endFlush() {
	a.mu.Lock()
	a.flushing--
	a.mu.Unlock()
}

// idle is closed while no record waits for its answer.
func (a *accumulator) idle() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.idleCh
}

// release forgets answered records: frees their buffer space.
func (a *accumulator) release(records []pendingRecord) {
	var bytes int64
	for _, r := range records {
		bytes += int64(r.size)
	}
	a.mu.Lock()
	a.buffered -= bytes
	a.outstanding -= len(records)
	if a.outstanding == 0 {
		close(a.idleCh)
	}
	close(a.spaceFreed)
	a.spaceFreed = make(chan struct{})
	a.mu.Unlock()
}

// drained is what the sender takes for one request.
type drained struct {
	batches []*producerBatch
	// wakeAt is when something becomes due (a linger or a backoff ends); zero: nothing waits.
	wakeAt time.Time
}

// drain takes the batches to send now: at most one per partition, within
// the in-flight limit and maxRequestBytes; and closes open batches whose
// linger is over (all of them when flushing or closing).
func (a *accumulator) drain(now time.Time, closing bool, inFlightRequests int) drained {
	a.mu.Lock()
	defer a.mu.Unlock()
	var d drained
	flushAll := closing || a.flushing > 0
	due := func(t time.Time) {
		if d.wakeAt.IsZero() || t.Before(d.wakeAt) {
			d.wakeAt = t
		}
	}
	requestBytes := 0
	n := len(a.order)
	for i := 0; i < n; i++ {
		q := a.order[(a.rr+i)%n]
		if q.open != nil {
			if flushAll || !now.Before(q.open.created.Add(a.cfg.linger)) {
				a.closeBatch(q)
			} else {
				due(q.open.created.Add(a.cfg.linger))
			}
		}
		if len(q.queue) == 0 || q.paused || q.inFlight >= a.cfg.maxInFlight || inFlightRequests >= maxInFlightRequests {
			continue
		}
		if now.Before(q.notBefore) {
			due(q.notBefore)
			continue
		}
		b := q.queue[0]
		if len(d.batches) > 0 && requestBytes+b.bytes > a.cfg.maxRequestBytes {
			continue
		}
		q.queue = q.queue[1:]
		q.inFlight++
		requestBytes += b.bytes
		d.batches = append(d.batches, b)
	}
	if n > 0 {
		a.rr = (a.rr + 1) % n
	}
	return d
}

// takeExpired takes out the batches not in flight whose delivery timeout
// passed (those in flight are bounded by the request timeout, then queued again).
func (a *accumulator) takeExpired(now time.Time) []*producerBatch {
	a.mu.Lock()
	defer a.mu.Unlock()
	var expired []*producerBatch
	for _, q := range a.order {
		if q.open != nil && !now.Before(q.open.deadline) {
			a.closeBatch(q)
		}
		kept := q.queue[:0]
		for _, b := range q.queue {
			if now.Before(b.deadline) {
				kept = append(kept, b)
			} else {
				expired = append(expired, b)
			}
		}
		for j := len(kept); j < len(q.queue); j++ {
			q.queue[j] = nil
		}
		q.queue = kept
	}
	return expired
}

// requeue puts batches that were in flight (in the order they were sent)
// back in their partitions' queues, to be sent again.
func (a *accumulator) requeue(batches []*producerBatch) {
	a.mu.Lock()
	defer a.mu.Unlock()
	byQueue := map[*partitionQueue][]*producerBatch{}
	for _, b := range batches {
		q := a.partitions[b.tp]
		q.inFlight--
		byQueue[q] = append(byQueue[q], b)
	}
	for q, bs := range byQueue {
		q.putBack(bs)
	}
}

// putBack queues batches that were sent to be sent again: after those put
// back before them (their answers came first, so they were sent first) and
// before those never sent. Called with the accumulator locked.
func (q *partitionQueue) putBack(bs []*producerBatch) {
	i := 0
	for i < len(q.queue) && q.queue[i].sent {
		i++
	}
	rest := append([]*producerBatch(nil), q.queue[i:]...)
	q.queue = append(append(q.queue[:i], bs...), rest...)
}

// abandonAll takes every record still buffered (at Close when its context ended).
func (a *accumulator) abandonAll() []*producerBatch {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []*producerBatch
	for _, q := range a.order {
		out = append(out, q.queue...)
		q.queue = nil
		if q.open != nil {
			out = append(out, q.open)
			q.open = nil
		}
	}
	return out
}

// empty reports whether no record waits in the accumulator or in flight.
func (a *accumulator) empty() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.outstanding == 0
}
