package tests

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/brook-io/brook/client-go/brook"
)

// silentListener accepts connections and never answers: a call to it waits
// until its context ends.
func silentListener(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = lis.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return lis.Addr().String()
}

// Admin.Close(ctx) is like the other clients' Close: it waits for the calls
// under way until ctx ends, then ends them (ErrClientClosed) and returns
// ctx's error; calls after it fail with ErrClientClosed; its logger says what
// it cut short; and no goroutine is left.
func TestAdminCloseWaitsForCallsUntilItsContextEnds(t *testing.T) {
	addr := silentListener(t)
	check := leakCheck(t)
	logs, logger := newLogCapture()
	started := make(chan struct{}, 1)
	a, err := brook.NewAdmin(brook.WithBroker(addr), brook.WithLogger(logger), brook.WithRequestTimeout(0),
		brook.WithDialOptions(grpc.WithUnaryInterceptor(func(ctx context.Context, method string, req, reply any,
			cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			started <- struct{}{}
			return invoker(ctx, method, req, reply, cc, opts...)
		})))
	if err != nil {
		t.Fatal(err)
	}
	callErr := make(chan error, 1)
	go func() {
		_, err := a.ListTopics(context.Background())
		callErr <- err
	}()
	<-started
	// Close waits for the call, which waits for the silent broker, until Close's ctx ends.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := a.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close: %v, want context.DeadlineExceeded", err)
	}
	if err := <-callErr; !errors.Is(err, brook.ErrClientClosed) {
		t.Fatalf("the call under way: %v, want ErrClientClosed", err)
	}
	if _, err := a.ListTopics(context.Background()); !errors.Is(err, brook.ErrClientClosed) {
		t.Fatalf("a call after Close: %v, want ErrClientClosed", err)
	}
	if err := a.Close(context.Background()); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if len(logs.lines("brook: admin: Close ends the calls still under way", "calls=1")) != 1 {
		t.Fatalf("log:\n%s", logs)
	}
	check()
}
