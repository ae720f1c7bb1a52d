package brook

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"
)

// recordOverhead approximates a record's framing on the wire (offset,
// timestamp, lengths), so that many tiny records still fill a batch.
const recordOverhead = 24

// pendingRecord is a record waiting for its answer.
type pendingRecord struct {
	rec      *Record
	promise  func(*Record, error)
	size     int
	flushGen uint64 // the Flush generation it was produced in
}

// producerBatch is records for one partition, sent and answered together.
type producerBatch struct {
	tp       TopicPartition
	records  []pendingRecord
	bytes    int
	created  time.Time
	deadline time.Time // created + delivery timeout
	// pos orders the partition's batches as they were made; the halves of a
	// split batch share its span (pos, pos+width), so they keep its place.
	pos, width float64
	baseSeq    int32
	hasSeq     bool // baseSeq is assigned (kept across resends)
	sent       bool // sent at least once: the broker may have written it
	// sentAsKafka: its last send was a Kafka batch of wireBytes bytes (not listed records).
	sentAsKafka bool
	wireBytes   int
}

// partitionQueue is one partition's batches: the one filling, and the closed
// ones in order, not in flight.
type partitionQueue struct {
	tp       TopicPartition
	open     *producerBatch
	queue    []*producerBatch // sorted by pos
	inFlight int
	nextPos  float64
	nextSeq  int32 // the sequence the next batch sent for the first time gets
	// ackedNext is the sequence after the last acknowledged batch: what the broker expects next.
	ackedNext int32
	// paused after a failed batch: nothing more is sent until the batches in
	// flight are back, then the queue is renumbered from ackedNext.
	paused    bool
	notBefore time.Time // retry backoff after a retriable error
}

// stickyPartition is where a topic's keyless records go now.
type stickyPartition struct {
	current, partitions int32
}

// accumulator holds the records not yet answered: the producer's buffer.
// Produce adds to it; the sender goroutine takes batches from it.
type accumulator struct {
	cfg *producerConfig

	mu         sync.Mutex
	partitions map[TopicPartition]*partitionQueue
	order      []*partitionQueue // stable order for fair draining
	rr         int               // where the next drain starts in order
	sticky     map[string]*stickyPartition
	buffered   int64 // bytes of records not answered
	flushing   int
	flushGen   uint64         // records produced now belong to this generation
	genCount   map[uint64]int // records not answered, per generation
	spaceFreed chan struct{}  // closed (and replaced) when bytes are released
	progress   chan struct{}  // closed (and replaced) when records are answered
	wakeCh     chan struct{}  // wakes the sender
	failure    error          // the sender's last failure to reach the broker (noteFailure)
}

func newAccumulator(cfg *producerConfig) *accumulator {
	return &accumulator{
		cfg:        cfg,
		partitions: map[TopicPartition]*partitionQueue{},
		sticky:     map[string]*stickyPartition{},
		genCount:   map[uint64]int{},
		spaceFreed: make(chan struct{}),
		progress:   make(chan struct{}),
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
// topic's sticky partition, which moves to the next partition whenever its
// batch is closed (full, or sent), so keyless records fill one partition's
// batch after another, as Kafka's producer does.
func (a *accumulator) append(ctx context.Context, closing <-chan struct{}, r *Record, size int,
	promise func(*Record, error), sticky bool, partitions int32) error {
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
		s := a.sticky[r.Topic]
		if s == nil || s.partitions != partitions {
			s = &stickyPartition{current: rand.Int32N(partitions), partitions: partitions}
			a.sticky[r.Topic] = s
		}
		if q := a.partitions[TopicPartition{r.Topic, s.current}]; q != nil && q.open != nil && a.overflows(q.open, size) {
			a.closeBatch(q) // moves s.current on
			wake = true
		}
		r.Partition = s.current
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
		q.open = &producerBatch{tp: tp, created: now, deadline: now.Add(a.cfg.deliveryTimeout), pos: q.nextPos, width: 1}
		q.nextPos++
		wake = true // a new linger deadline the sender must know of
	}
	q.open.records = append(q.open.records, pendingRecord{rec: r, promise: promise, size: size, flushGen: a.flushGen})
	q.open.bytes += size
	if q.open.bytes >= a.cfg.batchBytes {
		a.closeBatch(q)
		wake = true
	}
	a.buffered += int64(size)
	a.genCount[a.flushGen]++
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

// closeBatch moves the partition's open batch to its queue; if the partition
// is its topic's sticky one, keyless records move on to the next.
func (a *accumulator) closeBatch(q *partitionQueue) {
	q.queue = append(q.queue, q.open)
	q.open = nil
	if s := a.sticky[q.tp.Topic]; s != nil && s.current == q.tp.Partition {
		s.current = (s.current + 1) % s.partitions
	}
}

// wake makes the sender look at the accumulator again.
func (a *accumulator) wake() {
	select {
	case a.wakeCh <- struct{}{}:
	default:
	}
}

// beginFlush makes every buffered record sendable at once and returns the
// generation to wait for: the records produced before this call.
func (a *accumulator) beginFlush() uint64 {
	a.mu.Lock()
	a.flushing++
	gen := a.flushGen
	a.flushGen++
	a.mu.Unlock()
	a.wake()
	return gen
}

func (a *accumulator) endFlush() {
	a.mu.Lock()
	a.flushing--
	a.mu.Unlock()
}

// flushed reports whether every record of generations up to gen is answered,
// and else a channel closed at the next answer.
func (a *accumulator) flushed(gen uint64) (bool, <-chan struct{}) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for g := range a.genCount {
		if g <= gen {
			return false, a.progress
		}
	}
	return true, nil
}

// releaseBytes frees answered records' buffer space (before their promises
// run, so that a promise that produces again finds room).
func (a *accumulator) releaseBytes(records []pendingRecord) {
	var bytes int64
	for _, r := range records {
		bytes += int64(r.size)
	}
	a.mu.Lock()
	a.buffered -= bytes
	close(a.spaceFreed)
	a.spaceFreed = make(chan struct{})
	a.mu.Unlock()
}

// answered counts records as answered (after their promises ran).
func (a *accumulator) answered(records []pendingRecord) {
	a.mu.Lock()
	for _, r := range records {
		if a.genCount[r.flushGen]--; a.genCount[r.flushGen] == 0 {
			delete(a.genCount, r.flushGen)
		}
	}
	close(a.progress)
	a.progress = make(chan struct{})
	a.mu.Unlock()
}

// drained is what the sender takes for one request.
type drained struct {
	batches []*producerBatch
	// wakeAt is when something becomes due (a linger, a backoff or a delivery
	// timeout ends); zero: nothing waits.
	wakeAt time.Time
}

// drain takes the batches to send now: at most one per partition, within
// the in-flight limit and maxRequestBytes; and closes open batches whose
// linger is over (all of them when flushing or closing). With onlyNumbered,
// only batches that keep sequence numbers from an earlier send are taken
// (before the producer takes a new epoch).
func (a *accumulator) drain(now time.Time, closing bool, inFlightRequests int, onlyNumbered bool) drained {
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
				due(q.open.deadline)
			}
		}
		if len(q.queue) == 0 {
			continue
		}
		due(q.queue[0].deadline)
		if q.paused || q.inFlight >= a.cfg.maxInFlight || inFlightRequests >= maxInFlightRequests {
			continue
		}
		if now.Before(q.notBefore) {
			due(q.notBefore)
			continue
		}
		b := q.queue[0]
		if onlyNumbered && !b.hasSeq {
			continue
		}
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

// anyNumbered reports whether some partition's next batch keeps sequence
// numbers from an earlier send (to go again under the current epoch before a
// new one). Numbers behind a batch without one are dropped: they cannot go
// before it, so they are renumbered in the new epoch.
func (a *accumulator) anyNumbered() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	any := false
	for _, q := range a.order {
		if len(q.queue) == 0 {
			continue
		}
		if q.queue[0].hasSeq {
			any = true
			continue
		}
		for _, b := range q.queue {
			b.hasSeq = false
		}
	}
	return any
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

// requeue puts batches that were in flight back in their partitions' queues,
// to be sent again, and ends the pauses that waited for them.
func (a *accumulator) requeue(batches []*producerBatch) {
	a.mu.Lock()
	defer a.mu.Unlock()
	touched := map[*partitionQueue]bool{}
	for _, b := range batches {
		q := a.partitions[b.tp]
		q.inFlight--
		q.putBack(b)
		touched[q] = true
	}
	for q := range touched {
		q.resumeIfIdle()
	}
}

// putBack queues a batch again at its place (by pos). Called with the accumulator locked.
func (q *partitionQueue) putBack(b *producerBatch) {
	i := len(q.queue)
	for i > 0 && q.queue[i-1].pos > b.pos {
		i--
	}
	q.queue = append(q.queue, nil)
	copy(q.queue[i+1:], q.queue[i:])
	q.queue[i] = b
}

// resumeIfIdle ends a pause once no batch of the partition is in flight:
// the queue is renumbered from the last acknowledged sequence, so a batch
// that failed for good leaves no gap. Called with the accumulator locked.
func (q *partitionQueue) resumeIfIdle() {
	if q.paused && q.inFlight == 0 {
		q.paused = false
		q.renumberQueue()
	}
}

// renumberQueue makes the queued batches take sequences again from ackedNext,
// at their next send. Called with the accumulator locked.
func (q *partitionQueue) renumberQueue() {
	for _, b := range q.queue {
		b.hasSeq = false
	}
	q.nextSeq = q.ackedNext
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
	return len(a.genCount) == 0
}

// seqAdd advances a sequence number; sequences wrap at 2^31, as the broker's.
func seqAdd(seq int32, n int) int32 {
	return int32((int64(seq) + int64(n)) % (1 << 31))
}
