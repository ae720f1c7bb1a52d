package brook

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ackMaxUnreported bounds the refusals and unknown outcomes kept for the next
// Flush, for an application that never calls it.
const ackMaxUnreported = 10_000

// ackSent follows the settle messages the background sender put on the
// stream until the broker answers them (ReceiveResponse.settled_seq), so that
// Flush can report the outcome of every settle queued before it, whoever sent
// it. It keeps the refusals and unknown outcomes that no Flush returned yet.
// Only streams whose broker confirms settles are followed. Goroutine-safe.
type ackSent struct {
	mu         sync.Mutex
	seq        int64 // the last number given to a message
	awaiting   map[int64]*ackSentMsg
	unreported []ackOutcome  // in seq order
	dropped    int           // outcomes not kept: over ackMaxUnreported
	changed    chan struct{} // closed and replaced when a message's outcome is known
}

type ackSentMsg struct {
	stream  *ackStream
	batch   ackBatch
	sending bool // Send has not returned yet
	// reported: a Flush that gave up waiting returned it as of unknown
	// outcome; its answer then goes to the failure handler only, so that no
	// settle is returned by two Flushes.
	reported bool
}

// ackOutcome is a settle of message seq that did not apply (a *SettleError).
type ackOutcome struct {
	seq int64
	err error
}

// track numbers a batch about to be sent on s.
func (t *ackSent) track(s *ackStream, b ackBatch) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.awaiting == nil {
		t.awaiting = make(map[int64]*ackSentMsg)
	}
	t.seq++
	t.awaiting[t.seq] = &ackSentMsg{stream: s, batch: b, sending: true}
	return t.seq
}

// sendDone: Send of message seq returned. When it failed, the message is
// forgotten and the caller puts its settles back in the queue; answers false
// when the broker answered it anyway (so they must not be sent again).
func (t *ackSent) sendDone(seq int64, ok bool) (stillAwaited bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	m, found := t.awaiting[seq]
	if !found {
		return false
	}
	if !ok {
		delete(t.awaiting, seq)
		t.broadcastLocked()
		return true
	}
	m.sending = false
	select {
	case <-m.stream.done: // it ended while we sent: ended() has run, or will find nothing
		t.endLocked(seq, m)
	default:
	}
	return true
}

// answered: the broker applied message seq of stream s; refused are its settles that did not apply.
func (t *ackSent) answered(s *ackStream, seq int64, refused []*SettleError) {
	t.mu.Lock()
	defer t.mu.Unlock()
	answeredMsg, found := t.awaiting[seq]
	if !found {
		return
	}
	for n, m := range t.awaiting {
		if n <= seq && m.stream == s { // the broker answers in order: those before it applied too
			delete(t.awaiting, n)
		}
	}
	if !answeredMsg.reported {
		for _, e := range refused {
			t.keepLocked(seq, e)
		}
	}
	t.broadcastLocked()
}

// ended: stream s ended (s.err nil: the broker completed it, which confirms
// every settle sent on it; else their outcome is unknown).
func (t *ackSent) ended(s *ackStream) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for seq, m := range t.awaiting {
		if m.stream == s && !m.sending {
			t.endLocked(seq, m)
		}
	}
	t.broadcastLocked()
}

func (t *ackSent) endLocked(seq int64, m *ackSentMsg) {
	delete(t.awaiting, seq)
	if m.stream.err == nil || m.reported {
		return
	}
	why := fmt.Errorf("%w: sent in the background, but the stream ended before the broker answered: %w",
		ErrSettleOutcomeUnknown, callError(m.stream.err))
	for _, e := range SettleErrors(m.batch.settleErrors(why)) {
		t.keepLocked(seq, e)
	}
}

func (t *ackSent) keepLocked(seq int64, e error) {
	if len(t.unreported) >= ackMaxUnreported {
		t.dropped++
		return
	}
	t.unreported = append(t.unreported, ackOutcome{seq: seq, err: e})
}

func (t *ackSent) broadcastLocked() {
	if t.changed != nil {
		close(t.changed)
		t.changed = nil
	}
}

// last is the number of the last message sent (or being sent).
func (t *ackSent) last() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.seq
}

// collect waits until every message up to upTo has its outcome (or ctx
// ends: those still unanswered are of unknown outcome), then returns, and
// forgets, the settles of those messages that did not apply.
func (t *ackSent) collect(ctx context.Context, upTo int64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	var errs []error
	for {
		pending := t.awaitedLocked(upTo)
		if len(pending) == 0 {
			break
		}
		if t.changed == nil {
			t.changed = make(chan struct{})
		}
		changed := t.changed
		t.mu.Unlock()
		select {
		case <-changed:
			t.mu.Lock()
			continue
		case <-ctx.Done():
		}
		t.mu.Lock()
		why := fmt.Errorf("%w: sent in the background; no answer from the broker before ctx ended: %w",
			ErrSettleOutcomeUnknown, ctx.Err())
		for _, m := range t.awaitedLocked(upTo) {
			errs = append(errs, m.batch.settleErrors(why))
			m.reported = true
		}
		break
	}
	kept := t.unreported[:0]
	for _, o := range t.unreported {
		if o.seq <= upTo {
			errs = append(errs, o.err)
		} else {
			kept = append(kept, o)
		}
	}
	clear(t.unreported[len(kept):])
	t.unreported = kept
	if t.dropped > 0 {
		errs = append(errs, fmt.Errorf("brook: %d more settles did not apply and are not listed: over %d since the last Flush (the failure handler had the refused ones)",
			t.dropped, ackMaxUnreported))
		t.dropped = 0
	}
	return errors.Join(errs...)
}

func (t *ackSent) awaitedLocked(upTo int64) []*ackSentMsg {
	var out []*ackSentMsg
	for seq, m := range t.awaiting {
		if seq <= upTo && !m.reported {
			out = append(out, m)
		}
	}
	return out
}
