package brook

import (
	"context"
	"errors"
	"maps"
	"sync"
	"sync/atomic"
	"time"
)

// ProducerStats are a Producer's counters since it was made (Producer.Stats).
// The sender counts per batch or request, never per record, with atomics: the
// produce path pays nothing measurable for them.
type ProducerStats struct {
	// RecordsSent and BytesSent count the records the broker acknowledged as
	// written, and their bytes as sent: their Kafka batches, after
	// compression (keys, values, headers and framing; as the producer
	// accounts them when sent as listed records). BatchesSent counts the batches
	// acknowledged: BytesSent / BatchesSent is the average batch size.
	RecordsSent, BytesSent, BatchesSent int64
	// Retries counts batches sent again: after a retriable refusal, or when
	// the stream broke while they were in flight.
	Retries int64
	// Errors counts the records that failed (their promise got an error), by
	// the error's reason: the broker's error code without its ERROR_CODE_
	// prefix (RECORD_TOO_LARGE), the gRPC status (UNAVAILABLE), or the
	// client's own (DELIVERY_TIMEOUT, CLOSED, REQUEST_TOO_LARGE, NOT_SENT:
	// the context of Produce or ProduceSync ended before it was sent).
	Errors map[string]int64
	// BufferedBytes are held by records not yet answered, of BufferLimitBytes
	// (WithMaxBufferedBytes).
	BufferedBytes, BufferLimitBytes int64
	// RequestsInFlight are produce requests sent and not yet answered.
	RequestsInFlight int64
	// Requests counts the produce requests answered; RequestLatency adds up
	// the time from sending each to its answer.
	Requests       int64
	RequestLatency time.Duration
}

// producerCounters are what ProducerStats reads.
type producerCounters struct {
	recordsSent, bytesSent, batchesSent, retries atomic.Int64
	inFlight, requests, requestNanos             atomic.Int64

	errMu  sync.Mutex // only failures take it
	errors map[string]int64
}

func (c *producerCounters) acknowledged(b *producerBatch) {
	c.recordsSent.Add(int64(len(b.records)))
	if b.sentAsKafka {
		c.bytesSent.Add(int64(b.wireBytes))
	} else {
		c.bytesSent.Add(int64(b.bytes))
	}
	c.batchesSent.Add(1)
}

func (c *producerCounters) failed(err error, records int) {
	if records == 0 { // no reason listed with a count of 0
		return
	}
	reason := errorReason(err)
	c.errMu.Lock()
	if c.errors == nil {
		c.errors = map[string]int64{}
	}
	c.errors[reason] += int64(records)
	c.errMu.Unlock()
}

func (c *producerCounters) answered(sentAt time.Time, inFlight int) {
	c.requests.Add(1)
	c.requestNanos.Add(int64(time.Since(sentAt)))
	c.inFlight.Store(int64(inFlight))
}

// Stats returns the producer's counters now. Safe to call at any time, from any goroutine.
func (p *Producer) Stats() ProducerStats {
	c := &p.stats
	s := ProducerStats{
		RecordsSent:      c.recordsSent.Load(),
		BytesSent:        c.bytesSent.Load(),
		BatchesSent:      c.batchesSent.Load(),
		Retries:          c.retries.Load(),
		BufferLimitBytes: p.cfg.maxBufferedBytes,
		RequestsInFlight: c.inFlight.Load(),
		Requests:         c.requests.Load(),
		RequestLatency:   time.Duration(c.requestNanos.Load()),
	}
	c.errMu.Lock()
	s.Errors = maps.Clone(c.errors)
	c.errMu.Unlock()
	if s.Errors == nil {
		s.Errors = map[string]int64{}
	}
	p.acc.mu.Lock()
	s.BufferedBytes = p.acc.buffered
	p.acc.mu.Unlock()
	return s
}

// errorReason names an error as the Java client's BrookException.reason does.
func errorReason(err error) string {
	var be *BrokerError
	switch {
	case errors.Is(err, ErrRecordNotSent): // before the broker's error it may wrap
		return "NOT_SENT"
	case errors.Is(err, ErrDeliveryTimeout):
		return "DELIVERY_TIMEOUT"
	case errors.Is(err, ErrClientClosed):
		return "CLOSED"
	case errors.Is(err, ErrBufferFull):
		return "BUFFER_EXHAUSTED"
	case errors.Is(err, ErrRequestTooLarge):
		return "REQUEST_TOO_LARGE"
	case errors.As(err, &be):
		return be.Reason
	case errors.Is(err, context.Canceled):
		return "CANCELLED"
	case errors.Is(err, context.DeadlineExceeded):
		return "DEADLINE_EXCEEDED"
	}
	return "OTHER"
}
