package tests

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

// Acks queued just before Close all reach the broker: five rounds of acking
// every record and closing at once (the flusher sends every millisecond, so it
// often holds some when Close runs), after which nothing comes again.
func TestAckCloseRightAfterAckingLosesNoAck(t *testing.T) {
	t.Parallel()
	b := sharedBroker
	a := ackAdmin(t, b)
	for round := range 5 {
		topic := b.createTopic(t, 1, nil)
		group := ackGroup(t, a)
		ackProduceValues(t, b, topic, 0, 50, "v")
		c, err := brook.NewAckConsumer(brook.WithBroker(b.Addr()), brook.WithGroup(group), brook.WithTopics(topic),
			brook.WithAckFlushInterval(time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range ackTake(t, c, 50) {
			if err := c.Ack(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Close(ackCtx(t)); err != nil {
			t.Fatalf("round %d: close: %v", round, err)
		}
		g := ackAwaitAllSettled(t, a, group)
		if p := g.Partitions[0]; p.CommittedOffset != 50 || p.Redeliveries != 0 {
			t.Errorf("round %d: %+v: want committed 50, no redelivery", round, p)
		}
		next := ackConsumer(t, b, group, []string{topic})
		if again := ackPoll(t, next, 500*time.Millisecond); len(again) != 0 {
			t.Errorf("round %d: delivered again: %v", round, again)
		}
	}
}

// Close while the broker is away: it waits for a stream until its context
// ends, then names exactly the settles it could not send; they were not
// applied, so their records come again.
func TestAckCloseWhileTheBrokerIsAwayNamesTheSettlesNotSent(t *testing.T) {
	t.Parallel()
	b := startBroker(t)
	a := ackAdmin(t, b)
	topic := b.createTopic(t, 2, nil)
	group := ackGroup(t, a)
	ackProduceValues(t, b, topic, 0, 10, "a")
	ackProduceValues(t, b, topic, 1, 10, "b")
	c, err := brook.NewAckConsumer(brook.WithBroker(b.Addr()), brook.WithGroup(group), brook.WithTopics(topic),
		brook.WithAckFlushInterval(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	got := ackTake(t, c, 20)
	b.Stop()
	ackAwaitNoStream(t, c)
	for _, r := range got {
		if r.Partition == 0 || r.Offset >= 5 {
			if err := c.Ack(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err = c.Close(ctx)
	var named []string
	for _, se := range brook.SettleErrors(err) {
		if !errors.Is(se, brook.ErrSettleNotSent) || se.Topic != topic {
			t.Errorf("%v: want %s and ErrSettleNotSent", se, topic)
		}
		named = append(named, fmt.Sprintf("%d:%d..%d", se.Partition, se.FirstOffset, se.LastOffset))
	}
	slices.Sort(named)
	if !slices.Equal(named, []string{"0:0..9", "1:5..9"}) {
		t.Errorf("close named %v, want 0:0..9 and 1:5..9; error: %v", named, err)
	}

	b.Restart()
	next := ackConsumer(t, b, group, []string{topic})
	if again := ackTake(t, next, 20); len(again) != 20 {
		t.Errorf("delivered again: %d records, want all 20", len(again))
	}
}

// A consumer with a member id whose connection dropped: Close waits (until
// its context ends) for the broker to be reachable again and settles as that
// member, whose leases outlived the stream.
func TestAckCloseWithAMemberIDWaitsForTheBrokerToBeReachable(t *testing.T) {
	t.Parallel()
	b := sharedBroker
	a := ackAdmin(t, b)
	topic := b.createTopic(t, 1, nil)
	group := ackGroup(t, a)
	ackProduceValues(t, b, topic, 0, 10, "v")
	link := newTCPLink(t, b.Addr())
	c, err := brook.NewAckConsumer(brook.WithBroker(link.addr), brook.WithGroup(group), brook.WithTopics(topic),
		brook.WithAckMemberID(group+"-m"), brook.WithAckFlushInterval(time.Minute),
		brook.WithRetryBackoff(10*time.Millisecond, 100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	got := ackTake(t, c, 10)
	link.cut()
	ackAwaitNoStream(t, c)
	for _, r := range got {
		if err := c.Ack(r); err != nil {
			t.Fatal(err)
		}
	}
	go func() {
		time.Sleep(500 * time.Millisecond)
		link.restore()
	}()
	if err := c.Close(ackCtx(t)); err != nil {
		t.Fatalf("close: %v", err)
	}
	ackAwaitAllSettled(t, a, group)
}

// ackAwaitNoStream waits (20 s at most) until the consumer noticed that its
// stream is gone, so that what it queues next waits for a stream.
func ackAwaitNoStream(t testing.TB, c *brook.AckConsumer) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for c.MemberID() != "" {
		if time.Now().After(deadline) {
			t.Fatal("the consumer still has a stream after 20 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// tcpLink forwards a local port to the broker, and can drop every connection
// and refuse new ones (cut) until restore: a network that goes away.
type tcpLink struct {
	t      *testing.T
	addr   string
	target string

	mu    sync.Mutex
	lis   net.Listener
	conns []net.Conn
}

func newTCPLink(t *testing.T, target string) *tcpLink {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &tcpLink{t: t, addr: lis.Addr().String(), target: target}
	l.serve(lis)
	t.Cleanup(l.cut)
	return l
}

func (l *tcpLink) serve(lis net.Listener) {
	l.mu.Lock()
	l.lis = lis
	l.mu.Unlock()
	go func() {
		for {
			in, err := lis.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", l.target)
			if err != nil {
				_ = in.Close()
				continue
			}
			l.mu.Lock()
			l.conns = append(l.conns, in, out)
			l.mu.Unlock()
			go func() { _, _ = io.Copy(out, in); _ = out.Close() }()
			go func() { _, _ = io.Copy(in, out); _ = in.Close() }()
		}
	}()
}

// cut closes the listener and every connection.
func (l *tcpLink) cut() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lis != nil {
		_ = l.lis.Close()
		l.lis = nil
	}
	for _, c := range l.conns {
		_ = c.Close()
	}
	l.conns = nil
}

// restore listens on the same port again.
func (l *tcpLink) restore() {
	lis, err := net.Listen("tcp", l.addr)
	if err != nil {
		l.t.Errorf("listen on %s again: %v", l.addr, err)
		return
	}
	l.serve(lis)
}
