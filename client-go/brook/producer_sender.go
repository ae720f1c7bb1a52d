package brook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

// The broker reads ahead this many requests of a produce stream
// (produce.stream.max.inflight); more would only wait in its socket buffer.
const maxInFlightRequests = 32

// sender is the producer's one goroutine that talks to the broker: it takes
// batches from the accumulator, sends them on the produce stream, matches the
// answers (in order) and calls the records' promises.
type sender struct {
	p      *Producer
	acc    *accumulator
	cfg    *producerConfig
	client brookv1.ProduceServiceClient

	producerID    int64
	epoch         int32
	hasID         bool
	needEpochBump bool
	// olderBroker: the broker predates ProduceBatch.kafka_batch (it answered
	// one as an empty batch), so batches go as listed records.
	olderBroker bool

	stream   *produceStream
	inFlight []*inFlightRequest
	// lastHead is the first batch of the oldest request when the stream last
	// broke, and sameHeadBreaks how many times in a row the stream broke there.
	lastHead       *producerBatch
	sameHeadBreaks int
	nextCorr       uint64
	lastProgress   time.Time
	retryAt        time.Time // no stream or InitProducer before this (backoff)
	backoff        *backoff
	// failedTries counts the failures to reach the broker since it last
	// answered a request (the first is logged at Info, the others at Debug).
	failedTries int
	log         *slog.Logger
}

type inFlightRequest struct {
	corr    uint64
	batches []*producerBatch
	sentAt  time.Time
}

func newSender(p *Producer, client brookv1.ProduceServiceClient) *sender {
	return &sender{p: p, acc: p.acc, cfg: &p.cfg, client: client,
		backoff: newBackoff(p.cfg.backoffMin, p.cfg.backoffMax), log: p.cfg.conn.logger}
}

func (s *sender) run(ctx context.Context) {
	defer s.closeStream()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		select {
		case <-s.p.abort:
			s.failEverything(ErrClientClosed)
			return
		default:
		}
		closing := isClosed(s.p.closing)
		if closing && len(s.inFlight) == 0 && s.acc.empty() {
			return
		}
		now := time.Now()
		wakeAt := s.step(ctx, now, closing)
		if closing && len(s.inFlight) == 0 && s.acc.empty() {
			return // step failed the last records (expired, refused): Close waits for nothing more
		}
		if len(s.inFlight) > 0 {
			silentUntil := s.lastProgress.Add(s.cfg.requestTimeout)
			if !now.Before(silentUntil) {
				s.breakStream(fmt.Errorf("%w: no answer for %v", ErrBrokerUnavailable, s.cfg.requestTimeout))
				continue
			}
			wakeAt = earliest(wakeAt, silentUntil)
		}
		if wakeAt.IsZero() {
			wakeAt = now.Add(time.Hour)
		}
		timer.Reset(time.Until(wakeAt))
		var events <-chan streamEvent
		if s.stream != nil {
			events = s.stream.events
		}
		closingCh := s.p.closing
		if closing {
			closingCh = nil // closed: it would be ready at every turn
		}
		select {
		case <-s.acc.wakeCh:
		case <-timer.C:
		case ev := <-events:
			s.handle(ev)
		case <-closingCh:
		case <-s.p.abort:
		case <-ctx.Done():
			s.failEverything(ErrClientClosed)
			return
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

// step does what can be done now and says when to look again (zero: when woken).
func (s *sender) step(ctx context.Context, now time.Time, closing bool) time.Time {
	for _, b := range s.acc.takeExpired(now) {
		s.expire(b)
	}
	if now.Before(s.retryAt) {
		return s.retryAt
	}
	if s.acc.empty() && len(s.inFlight) == 0 {
		return time.Time{}
	}
	// A new epoch restarts every sequence at 0. Before it, the batches that keep
	// their numbers from an earlier send go again under the old epoch, so the
	// broker recognises those it wrote already; the others wait.
	bumping := s.cfg.idempotent && s.needEpochBump
	if s.cfg.idempotent && (!s.hasID || bumping) && len(s.inFlight) == 0 && !s.acc.anyNumbered() {
		if err := s.initProducer(ctx); err != nil {
			s.retryAt = now.Add(s.backoff.step())
			if !isRetriable(err) {
				s.log.Warn("brook: producer: the broker refused a producer id; failing the buffered records", "error", err)
				s.failQueued(err)
			} else {
				s.failedToReach("cannot get a producer id; retrying", err)
			}
			return s.retryAt
		}
		bumping = false
	}
	if s.cfg.idempotent && !s.hasID {
		return time.Time{}
	}
	if s.stream == nil {
		if err := s.openStream(ctx); err != nil {
			s.failedToReach("cannot open the produce stream; retrying", err)
			s.retryAt = now.Add(s.backoff.step())
			return s.retryAt
		}
	}
	d := s.acc.drain(now, closing, len(s.inFlight), bumping)
	if len(d.batches) > 0 {
		s.send(d.batches)
		return now // look again at once: more may be ready
	}
	return d.wakeAt
}

func (s *sender) initProducer(ctx context.Context) error {
	req := &brookv1.InitProducerRequest{}
	if s.hasID {
		req.ProducerId = &s.producerID
	}
	cctx, cancel := context.WithTimeout(ctx, s.cfg.requestTimeout)
	defer cancel()
	resp, err := s.client.InitProducer(cctx, req)
	if err != nil {
		return callError(err)
	}
	s.producerID, s.epoch, s.hasID = resp.GetProducerId(), resp.GetProducerEpoch(), true
	// A new id or epoch starts every partition's sequence at 0.
	s.acc.mu.Lock()
	for _, q := range s.acc.order {
		q.ackedNext = 0
		q.renumberQueue()
	}
	s.acc.mu.Unlock()
	s.needEpochBump = false
	return nil
}

// send assigns sequence numbers to batches sent for the first time and
// writes one request with all of them.
func (s *sender) send(batches []*producerBatch) {
	req := &brookv1.ProduceRequest{Durability: s.cfg.durability.proto(), Batches: make([]*brookv1.ProduceBatch, len(batches))}
	if s.cfg.idempotent {
		req.ProducerId = &s.producerID
		req.ProducerEpoch = s.epoch
	}
	s.acc.mu.Lock()
	for _, b := range batches {
		q := s.acc.partitions[b.tp]
		if !b.hasSeq {
			b.baseSeq, b.hasSeq = q.nextSeq, true
			q.nextSeq = seqAdd(q.nextSeq, len(b.records))
		}
		b.sent = true
	}
	s.acc.mu.Unlock()
	for i, b := range batches { // closed batches: only the sender reads them now
		req.Batches[i] = s.batchProto(b, req)
	}
	s.nextCorr++
	if len(s.inFlight) == 0 {
		s.lastProgress = time.Now()
	}
	s.inFlight = append(s.inFlight, &inFlightRequest{corr: s.nextCorr, batches: batches, sentAt: time.Now()})
	s.p.stats.inFlight.Store(int64(len(s.inFlight)))
	// Send blocks while the broker reads nothing (HTTP/2 flow control): a
	// watchdog ends the stream after the request timeout, which unblocks it.
	watchdog := time.AfterFunc(s.cfg.requestTimeout, s.stream.cancel)
	err := s.stream.stream.Send(&brookv1.ProduceStreamRequest{CorrelationId: s.nextCorr, Request: req})
	watchdog.Stop()
	if err != nil && !errors.Is(err, io.EOF) {
		s.breakStream(callError(err)) // io.EOF: the stream ended, and its receiver reports why
	}
}

// batchProto is the batch as this attempt sends it: one Kafka record batch v2
// (D49), compressed as configured, with the attempt's producer fields; listed
// records for a broker older than kafka_batch.
func (s *sender) batchProto(b *producerBatch, req *brookv1.ProduceRequest) *brookv1.ProduceBatch {
	b.sentAsKafka = false
	if s.olderBroker {
		return b.proto(s.cfg.idempotent)
	}
	producer := noKafkaProducer
	if s.cfg.idempotent {
		producer = kafkaProducer{id: req.GetProducerId(), epoch: int16(req.GetProducerEpoch()), sequence: b.baseSeq}
	}
	batch, err := encodeKafkaBatch(b.records, s.cfg.compression, producer)
	if err != nil { // never for writers into memory; the records still go, uncompressed
		s.log.Error("brook: cannot encode a Kafka batch; sending listed records", "err", err)
		return b.proto(s.cfg.idempotent)
	}
	b.sentAsKafka = true
	b.wireBytes = len(batch)
	partition := b.tp.Partition
	out := &brookv1.ProduceBatch{Topic: b.tp.Topic, Partition: &partition, KafkaBatch: batch}
	if s.cfg.idempotent {
		seq := b.baseSeq
		out.BaseSequence = &seq
	}
	return out
}

func (b *producerBatch) proto(idempotent bool) *brookv1.ProduceBatch {
	partition := b.tp.Partition
	out := &brookv1.ProduceBatch{Topic: b.tp.Topic, Partition: &partition, Records: make([]*brookv1.Record, len(b.records))}
	if idempotent {
		seq := b.baseSeq
		out.BaseSequence = &seq
	}
	for i, pr := range b.records {
		r := pr.rec
		rec := &brookv1.Record{Key: r.Key, Value: r.Value}
		if !r.Timestamp.IsZero() {
			ts := r.Timestamp.UnixMilli()
			rec.TimestampMs = &ts
		}
		if len(r.Headers) > 0 {
			rec.Headers = make([]*brookv1.Header, len(r.Headers))
			for j, h := range r.Headers {
				rec.Headers[j] = &brookv1.Header{Key: h.Key, Value: h.Value}
			}
		}
		out.Records[i] = rec
	}
	return out
}

// handle takes one event of the stream: an answer, or the stream's end.
func (s *sender) handle(ev streamEvent) {
	if ev.err != nil {
		s.breakStream(ev.err)
		return
	}
	if len(s.inFlight) == 0 || ev.resp.GetCorrelationId() != s.inFlight[0].corr {
		s.breakStream(fmt.Errorf("brook: produce answer %d does not match the request sent", ev.resp.GetCorrelationId()))
		return
	}
	req := s.inFlight[0]
	s.inFlight = s.inFlight[1:]
	s.p.stats.answered(req.sentAt, len(s.inFlight))
	s.lastProgress = time.Now()
	s.backoff.reset()
	s.reachedAgain()
	results := make([]*brookv1.ProduceResult, len(req.batches))
	for _, r := range ev.resp.GetResponse().GetResults() {
		if i := int(r.GetBatchIndex()); i >= 0 && i < len(results) {
			results[i] = r
		}
	}
	readsKafka := ev.resp.GetResponse().GetReadsKafkaBatch()
	for i, b := range req.batches {
		if b.sentAsKafka && !readsKafka && results[i].GetErrorCode() == brookv1.ErrorCode_ERROR_CODE_INVALID_RECORD {
			s.fromOlderBroker(b)
			continue
		}
		s.complete(b, results[i])
	}
}

// complete settles one batch from its result.
func (s *sender) complete(b *producerBatch, r *brookv1.ProduceResult) {
	code := r.GetErrorCode()
	if r == nil {
		code = brookv1.ErrorCode_ERROR_CODE_INVALID_REQUEST
	}
	if code == brookv1.ErrorCode_ERROR_CODE_UNSPECIFIED {
		s.acc.mu.Lock()
		q := s.acc.partitions[b.tp]
		q.inFlight--
		if s.cfg.idempotent {
			q.ackedNext = seqAdd(b.baseSeq, len(b.records))
		}
		s.sameHeadBreaks = 0
		q.resumeIfIdle()
		s.acc.mu.Unlock()
		s.p.stats.acknowledged(b)
		appended := time.UnixMilli(r.GetAppendTimeMs())
		for i, pr := range b.records {
			pr.rec.Offset = r.GetBaseOffset() + int64(i)
			if r.GetLogAppendTime() || pr.rec.Timestamp.IsZero() {
				pr.rec.Timestamp = appended // the topic stamps the append time over the producer's
			}
		}
		s.finish(b, nil)
		return
	}
	err := partitionError(code, r.GetErrorMessage(), b.tp.Topic, b.tp.Partition)
	now := time.Now()
	s.acc.mu.Lock()
	q := s.acc.partitions[b.tp]
	q.inFlight--
	wasPaused := q.paused
	q.paused = true // nothing more for this partition until its answers are in, then renumber
	var retry []*producerBatch
	switch {
	case code == brookv1.ErrorCode_ERROR_CODE_OUT_OF_ORDER_SEQUENCE && s.cfg.idempotent:
		// Not written. Behind a batch that failed (or expired): numbered again and
		// resent. Otherwise the broker's count differs from ours: a new epoch restarts both.
		if !wasPaused {
			s.needEpochBump = true
		}
		b.hasSeq = false
		retry = []*producerBatch{b}
	case code == brookv1.ErrorCode_ERROR_CODE_UNKNOWN_PRODUCER_ID && s.cfg.idempotent:
		s.needEpochBump = true
		b.hasSeq = false
		retry = []*producerBatch{b}
	case recordFault[code] && len(b.records) > 1:
		retry = b.split() // until the record at fault is alone, and fails alone
	case isRetriable(err) && now.Before(b.deadline):
		q.notBefore = now.Add(s.cfg.backoffMin)
		retry = []*producerBatch{b}
		if code == brookv1.ErrorCode_ERROR_CODE_UNKNOWN_PARTITION {
			s.p.meta.forget(b.tp.Topic)
		}
	}
	for _, r := range retry {
		q.putBack(r)
	}
	if retry != nil {
		s.p.stats.retries.Add(1) // one batch goes again (in two halves if split)
	}
	q.resumeIfIdle()
	s.acc.mu.Unlock()
	if retry == nil {
		s.finish(b, err)
	}
}

// fromOlderBroker settles a batch a broker older than kafka_batch refused as
// empty (it dropped the field unread), so nothing was written: uncompressed,
// it goes again as listed records, as every later batch; compressed, it
// fails, since that broker stores nothing compressed.
func (s *sender) fromOlderBroker(b *producerBatch) {
	if s.cfg.compression != CompressionNone {
		s.acc.mu.Lock()
		q := s.acc.partitions[b.tp]
		q.inFlight--
		q.paused = true // the batches behind it are renumbered once their answers are in
		q.resumeIfIdle()
		s.acc.mu.Unlock()
		s.finish(b, fmt.Errorf("%w: the broker predates compressed batches (ProduceBatch.kafka_batch) and cannot "+
			"store %v batches for %s/%d; upgrade it, or produce with CompressionNone", ErrInvalidRecord,
			s.cfg.compression, b.tp.Topic, b.tp.Partition))
		return
	}
	if !s.olderBroker {
		s.log.Info("brook: the broker does not read Kafka batches (it predates ProduceBatch.kafka_batch); sending listed records")
	}
	s.olderBroker = true
	s.acc.mu.Lock()
	q := s.acc.partitions[b.tp]
	q.inFlight--
	q.putBack(b)
	q.resumeIfIdle()
	s.acc.mu.Unlock()
	s.p.stats.retries.Add(1)
}

// recordFault are the codes that refuse a whole batch for one record in it (or its size).
var recordFault = map[brookv1.ErrorCode]bool{
	brookv1.ErrorCode_ERROR_CODE_RECORD_TOO_LARGE: true,
	brookv1.ErrorCode_ERROR_CODE_BATCH_TOO_LARGE:  true,
	brookv1.ErrorCode_ERROR_CODE_INVALID_RECORD:   true,
}

// split halves a batch the broker found too large.
func (b *producerBatch) split() []*producerBatch {
	half := len(b.records) / 2
	first, second := *b, *b
	first.records = append([]pendingRecord(nil), b.records[:half]...)
	second.records = append([]pendingRecord(nil), b.records[half:]...)
	first.bytes, second.bytes = 0, 0
	for _, r := range first.records {
		first.bytes += r.size
	}
	for _, r := range second.records {
		second.bytes += r.size
	}
	first.hasSeq, second.hasSeq = false, false
	first.width, second.width = b.width/2, b.width/2
	second.pos = b.pos + b.width/2
	return []*producerBatch{&first, &second}
}

// expire fails a queued batch whose delivery timeout passed. A batch never
// sent used no sequence numbers. One that was sent may have been written, so
// its numbers cannot be given to other records: the producer takes a new
// epoch (after the batches still in flight or numbered have gone again).
func (s *sender) expire(b *producerBatch) {
	if b.sent && s.cfg.idempotent {
		s.needEpochBump = true
	}
	s.finish(b, fmt.Errorf("%w: %d records for %s/%d not answered in %v", ErrDeliveryTimeout,
		len(b.records), b.tp.Topic, b.tp.Partition, s.cfg.deliveryTimeout))
}

// breakStream ends the current stream; every batch still in flight is queued
// again, with its sequence numbers, for the next stream (the broker drops
// the ones it wrote already). A request that ends the stream again and again
// (poisonStreamBreaks times in a row, by its fault: requestsFault) is
// refused: it is made smaller if the broker reset the stream or found it too
// large, else it fails.
func (s *sender) breakStream(err error) {
	s.closeStream()
	var batches []*producerBatch
	var head *inFlightRequest
	if len(s.inFlight) > 0 {
		head = s.inFlight[0]
	}
	for _, r := range s.inFlight {
		batches = append(batches, r.batches...)
	}
	s.inFlight = nil
	s.p.stats.inFlight.Store(0)
	s.p.stats.retries.Add(int64(len(batches)))
	s.acc.requeue(batches)
	s.retryAt = time.Now().Add(s.backoff.step())
	s.failedToReach("the produce stream broke; sending its batches again on a new one", err, "batches", len(batches))
	if head == nil || !requestsFault(err) {
		return // the broker is away, starting, stopping or silent: the delivery timeout bounds the retries
	}
	if head.batches[0] == s.lastHead {
		s.sameHeadBreaks++
	} else {
		s.lastHead, s.sameHeadBreaks = head.batches[0], 1
	}
	if s.sameHeadBreaks < poisonStreamBreaks {
		return
	}
	s.lastHead, s.sameHeadBreaks = nil, 0
	s.log.Warn("brook: producer: a request ended the produce stream again and again; refusing it",
		"times", poisonStreamBreaks, "batches", len(head.batches), "reason", err.Error())
	if errors.Is(err, ErrRequestTooLarge) || errors.Is(err, context.Canceled) {
		s.shrink(head, err)
	} else {
		s.failRequest(head, err)
	}
}

// poisonStreamBreaks is how many times in a row one request may end the stream before it is refused.
const poisonStreamBreaks = 3

// requestsFault: the stream ended in a way the request at its head may have
// caused (reset, too large, malformed, an internal error), which counts
// toward poisonStreamBreaks. A broker that is unreachable, recovering its
// storage, shutting down (UNAVAILABLE) or silent would refuse any request:
// the batches wait for it until their delivery timeout.
func requestsFault(err error) bool {
	return !errors.Is(err, ErrBrokerUnavailable) && !isRetriable(err)
}

// failedToReach notes a failure to reach the broker: the first since it last
// answered is logged at Info, the next ones at Debug.
func (s *sender) failedToReach(what string, err error, attrs ...any) {
	s.acc.noteFailure(err)
	if errors.Is(err, ErrBrokerUnavailable) {
		// Our backoff paces the retries, not gRPC's reconnect backoff (up to 2
		// min), which would keep failing them long after the broker is back.
		s.p.conn.ResetConnectBackoff()
	}
	s.failedTries++
	attrs = append([]any{"reason", err.Error()}, attrs...)
	if s.failedTries == 1 {
		s.log.Info("brook: producer: "+what, attrs...)
	} else {
		s.log.Debug("brook: producer: "+what, append(attrs, "tries", s.failedTries)...)
	}
}

// reachedAgain notes an answer of the broker; logged when failures came before it.
func (s *sender) reachedAgain() {
	if s.failedTries == 0 {
		return
	}
	s.log.Info("brook: producer: the broker answers again", "failed_tries", s.failedTries)
	s.failedTries = 0
	s.acc.noteFailure(nil)
}

// shrink halves the batches of a request the broker reset the stream at (a
// request over its max.request.bytes), and fails a single record alone.
func (s *sender) shrink(head *inFlightRequest, err error) {
	s.acc.mu.Lock()
	var failed []*producerBatch
	for _, b := range head.batches {
		q := s.acc.partitions[b.tp]
		for i, queued := range q.queue {
			if queued != b {
				continue
			}
			if len(b.records) == 1 {
				q.queue = append(q.queue[:i:i], q.queue[i+1:]...)
				failed = append(failed, b)
			} else {
				rest := append(b.split(), q.queue[i+1:]...)
				q.queue = append(q.queue[:i], rest...)
			}
			break
		}
	}
	s.bumpAfterRefusal()
	s.acc.mu.Unlock()
	for _, b := range failed {
		s.finish(b, fmt.Errorf("%w: the broker ended the stream at this record %d times: %w",
			ErrRequestTooLarge, poisonStreamBreaks, err))
	}
}

// failRequest fails the batches of a request that ended the stream every time it was sent.
func (s *sender) failRequest(req *inFlightRequest, err error) {
	s.acc.mu.Lock()
	for _, b := range req.batches {
		q := s.acc.partitions[b.tp]
		for i, queued := range q.queue {
			if queued == b {
				q.queue = append(q.queue[:i:i], q.queue[i+1:]...)
				break
			}
		}
	}
	s.bumpAfterRefusal()
	s.acc.mu.Unlock()
	for _, b := range req.batches {
		s.finish(b, err)
	}
}

// bumpAfterRefusal: a refused request may have been written, or left a gap,
// so the sequences after it cannot be trusted: a new epoch, once the
// numbered batches have gone again under the old one. Called with the accumulator locked.
func (s *sender) bumpAfterRefusal() {
	if s.cfg.idempotent {
		s.needEpochBump = true
	}
}

// finish calls the batch's promises and frees its buffer space.
func (s *sender) finish(b *producerBatch, err error) {
	if err != nil {
		s.p.stats.failed(err, len(b.records))
	}
	s.acc.releaseBytes(b.records)
	for _, pr := range b.records {
		pr.promise(pr.rec, err)
	}
	s.acc.answered(b.records)
}

// failQueued fails every batch not in flight (InitProducer was refused for good).
func (s *sender) failQueued(err error) {
	for _, b := range s.acc.abandonAll() {
		s.finish(b, err)
	}
}

// failEverything fails what is in flight and what is buffered (Close gave up).
func (s *sender) failEverything(err error) {
	s.closeStream()
	for _, r := range s.inFlight {
		for _, b := range r.batches {
			s.finish(b, err)
		}
	}
	s.inFlight = nil
	s.p.stats.inFlight.Store(0)
	s.failQueued(err)
}

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
