package tests

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/stats"

	"github.com/brook-io/brook/client-go/brook"
)

// connCounter counts the transport connections a client opens and loses.
type connCounter struct{ begins, ends atomic.Int64 }

func (c *connCounter) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context   { return ctx }
func (c *connCounter) HandleRPC(context.Context, stats.RPCStats)                         {}
func (c *connCounter) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }
func (c *connCounter) HandleConn(_ context.Context, s stats.ConnStats) {
	switch s.(type) {
	case *stats.ConnBegin:
		c.begins.Add(1)
	case *stats.ConnEnd:
		c.ends.Add(1)
	}
}

// The shortest keepalive the client allows (10 s) is one the broker's policy
// accepts: an idle producer keeps its connection over two pings, where a
// broker that found the pings too frequent would close it (GOAWAY
// ENHANCE_YOUR_CALM) and the client would connect again.
func TestShortestKeepaliveKeepsTheConnection(t *testing.T) {
	t.Parallel()
	b := sharedBroker
	topic := b.createTopic(t, 1, nil)
	counter := &connCounter{}
	p := newProducer(t, b, brook.WithKeepalive(10*time.Second), brook.WithDialOptions(grpc.WithStatsHandler(counter)))
	ctx := testCtx(t, 60*time.Second)
	if err := p.ProduceSync(ctx, &brook.Record{Topic: topic, Value: []byte("before")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(25 * time.Second) // idle across two keepalive pings
	if err := p.ProduceSync(ctx, &brook.Record{Topic: topic, Value: []byte("after")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if begins, ends := counter.begins.Load(), counter.ends.Load(); begins != 1 || ends != 0 {
		t.Fatalf("%d connections opened, %d lost over an idle 25 s: the broker refused the pings", begins, ends)
	}
}
