package brook

import (
	"context"
	"sync"
)

// Close stops taking calls (later ones fail with ErrClientClosed), waits
// until ctx ends for the calls under way, then ends those still running (they
// fail with ErrClientClosed; Close returns ctx's error) and closes the
// connection the Admin made (not one given with WithConn), as the other
// clients' Close. Close after Close returns nil.
func (a *Admin) Close(ctx context.Context) error {
	idle, first := a.calls.close()
	if !first {
		return nil
	}
	var err error
	select {
	case <-idle:
	case <-ctx.Done():
		err = ctx.Err()
		a.log.Info("brook: admin: Close ends the calls still under way", "calls", a.calls.running())
		a.end()
		<-idle // each ends as soon as its context does
	}
	a.end()
	if a.ownsConn {
		if cerr := a.conn.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	return err
}

// adminCalls counts the Admin's calls under way, so that Close can wait for them.
type adminCalls struct {
	mu     sync.Mutex
	n      int
	closed bool
	idle   chan struct{} // made by close; closed once no call runs
}

// begin counts a call in; false after close.
func (c *adminCalls) begin() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.n++
	return true
}

func (c *adminCalls) end() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n--; c.n == 0 && c.closed {
		close(c.idle)
	}
}

func (c *adminCalls) running() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// close takes no more calls and returns a channel closed once none runs;
// first is false when it was closed already.
func (c *adminCalls) close() (idle <-chan struct{}, first bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, false
	}
	c.closed = true
	c.idle = make(chan struct{})
	if c.n == 0 {
		close(c.idle)
	}
	return c.idle, true
}
