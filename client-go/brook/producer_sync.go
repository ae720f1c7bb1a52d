package brook

import (
	"context"
	"fmt"
	"sync"
)

// ProduceSync produces the records and waits for all their answers, or for
// ctx to end. Then the records not yet handed to the produce stream are
// taken out of the buffer and never written: their error matches
// ErrRecordNotSent, so producing them again makes no duplicate. Records
// already sent and not answered fail with ErrRecordOutcomeUnknown: they may
// be written (at most once when idempotent, the default; the producer still
// finishes them, and Flush waits for them). Both errors match ctx's error
// too, and wrap the broker's last failure when there was one
// (errors.Is(err, ErrBrokerUnavailable)).
//
// The records returned are the caller's, set as Produce sets them (Partition,
// Offset, Timestamp) for the results known when it returns, and never
// written by the producer after it returns. Their Key, Value and Headers must
// not change until the records of unknown outcome are answered (after Flush).
func (p *Producer) ProduceSync(ctx context.Context, records ...*Record) ProduceResults {
	call := newSyncCall(records)
	for i := range records {
		p.Produce(ctx, call.own[i], call.promise(i))
	}
	select {
	case <-call.done:
	case <-ctx.Done():
		err := notSentError(ctx.Err(), p.acc.lastFailure())
		p.stats.failed(err, p.acc.withdraw(call.own, err))
	}
	return call.results(ctx, p.acc.lastFailure())
}

// syncCall is one ProduceSync: the producer works on copies of the caller's
// records, and answers are copied back only until ProduceSync returns, so
// the producer never writes memory the caller was given.
type syncCall struct {
	mu       sync.Mutex
	records  []*Record // the caller's
	own      []*Record // the producer's copies (nil for a nil record)
	errs     []error
	answered []bool
	left     int
	done     chan struct{} // closed when every record is answered
	returned bool
}

func newSyncCall(records []*Record) *syncCall {
	c := &syncCall{records: records, own: make([]*Record, len(records)), errs: make([]error, len(records)),
		answered: make([]bool, len(records)), left: len(records), done: make(chan struct{})}
	for i, r := range records {
		if r != nil {
			cp := *r
			c.own[i] = &cp
		}
	}
	if c.left == 0 {
		close(c.done)
	}
	return c
}

// promise records record i's answer, unless ProduceSync returned already.
func (c *syncCall) promise(i int) func(*Record, error) {
	return func(r *Record, err error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.returned || c.answered[i] {
			return
		}
		if dst := c.records[i]; dst != nil && r != nil {
			dst.Partition, dst.Offset, dst.Timestamp = r.Partition, r.Offset, r.Timestamp
		}
		c.errs[i], c.answered[i] = err, true
		if c.left--; c.left == 0 {
			close(c.done)
		}
	}
}

// results ends the call: records not answered yet are of unknown outcome.
func (c *syncCall) results(ctx context.Context, last error) ProduceResults {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.returned = true
	out := make(ProduceResults, len(c.records))
	for i, r := range c.records {
		out[i] = ProduceResult{Record: r, Err: c.errs[i]}
		if !c.answered[i] {
			out[i].Err = fmt.Errorf("%w: sent, not answered when ctx ended: %w", ErrRecordOutcomeUnknown,
				ctxError(ctx.Err(), last))
		}
	}
	return out
}

// notSentError is the error of a record given up before it was handed to the
// stream: ErrRecordNotSent and ctx's error, wrapping the last failure before it.
func notSentError(ctxErr, last error) error {
	return fmt.Errorf("%w: %w", ErrRecordNotSent, ctxError(ctxErr, last))
}
