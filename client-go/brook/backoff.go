package brook

import (
	"context"
	"math/rand/v2"
	"time"
)

// backoff is the wait between retries after the broker could not be reached:
// doubling from min to max, with up to 20% jitter so that clients restarted
// together do not retry in step.
type backoff struct {
	min, max time.Duration
	next     time.Duration
}

func newBackoff(min, max time.Duration) *backoff {
	return &backoff{min: min, max: max, next: min}
}

// wait sleeps for the next interval (with jitter), or until ctx ends (then it returns ctx's error).
func (b *backoff) wait(ctx context.Context) error {
	d := b.step()
	d += time.Duration(rand.Int64N(int64(d)/5 + 1))
	return sleepCtx(ctx, d)
}

// step returns the next interval and doubles the one after, for a caller
// that schedules the wait itself.
func (b *backoff) step() time.Duration {
	d := b.next
	b.next = min(b.next*2, b.max)
	return d
}

// reset starts again from min, after a success.
func (b *backoff) reset() { b.next = b.min }

// sleepCtx sleeps for d, or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
