package brook

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
)

// ctxError is the error of a wait that ctx ended: ctx's error, wrapping the
// last failure before it when that says more than the end of ctx itself
// (errors.Is(err, ErrBrokerUnavailable) while the broker was unreachable).
func ctxError(ctxErr, last error) error {
	if !saysMoreThanCtx(last) {
		return ctxErr
	}
	return fmt.Errorf("%w (last error: %w)", ctxErr, last)
}

// saysMoreThanCtx: last is a failure of its own, not a call cut by a context's end.
func saysMoreThanCtx(last error) bool {
	var be *BrokerError
	return last != nil && !errors.Is(last, context.Canceled) && !errors.Is(last, context.DeadlineExceeded) &&
		!(errors.As(last, &be) && (be.GRPCCode == codes.Canceled || be.GRPCCode == codes.DeadlineExceeded))
}

// scoped is ctx, also ended (with cause ErrClientClosed) when stop ends: a
// call of a client that Close may cut short.
func scoped(ctx context.Context, stop context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	unhook := context.AfterFunc(stop, func() { cancel(ErrClientClosed) })
	return ctx, func() {
		unhook()
		cancel(nil)
	}
}
