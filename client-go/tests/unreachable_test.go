package tests

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

// deadAddress is a loopback address where nothing listens (a port just freed).
func deadAddress(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	_ = lis.Close()
	return addr
}

// unreachableCtx is the 5 s context.
func unreachableCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// mustSayUnavailableAndDeadline: the error of a wait the context ended while
// the broker was unreachable says both (CLIENTS.md: the context's error,
// wrapping the last broker error).
func mustSayUnavailableAndDeadline(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, brook.ErrBrokerUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%s: %v; want an error matching ErrBrokerUnavailable and context.DeadlineExceeded", what, err)
	}
}

// Every Go client, waiting for a broker that is not there until its context
// ends, says the broker is unavailable and that the context ended.
func TestEveryClientSaysTheBrokerIsUnavailable(t *testing.T) {
	dead := deadAddress(t)
	t.Run("ProduceSync", func(t *testing.T) {
		t.Parallel()
		p, err := brook.NewProducer(brook.WithBroker(dead))
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = p.Close(context.Background()) }()
		err = p.ProduceSync(unreachableCtx(t), &brook.Record{Topic: "t", Value: []byte("x")}).FirstErr()
		mustSayUnavailableAndDeadline(t, "ProduceSync", err)
		if !errors.Is(err, brook.ErrRecordNotSent) {
			t.Fatalf("ProduceSync: %v; want ErrRecordNotSent too", err)
		}
	})
	t.Run("ProduceSyncBuffered", func(t *testing.T) {
		t.Parallel() // the topic's partitions are known: the record waits in the buffer
		b := startBroker(t)
		topic := b.createTopic(t, 1, nil)
		p := newProducer(t, b)
		if err := p.ProduceSync(unreachableCtx(t), &brook.Record{Topic: topic, Value: []byte("warm")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
		b.Kill()
		err := p.ProduceSync(unreachableCtx(t), &brook.Record{Topic: topic, Value: []byte("x")}).FirstErr()
		mustSayUnavailableAndDeadline(t, "ProduceSync", err)
		if !errors.Is(err, brook.ErrRecordNotSent) {
			t.Fatalf("ProduceSync: %v; want ErrRecordNotSent too", err)
		}
	})
	t.Run("ConsumerPoll", func(t *testing.T) {
		t.Parallel()
		c := consumerNew(t, brook.WithBroker(dead), brook.WithGroup("g"), brook.WithTopics("t"))
		_, err := c.Poll(unreachableCtx(t))
		mustSayUnavailableAndDeadline(t, "Consumer.Poll", err)
	})
	t.Run("ConsumerCommitted", func(t *testing.T) {
		t.Parallel()
		c := consumerNew(t, brook.WithBroker(dead), brook.WithGroup("g"), brook.WithTopics("t"))
		_, err := c.Committed(unreachableCtx(t), brook.TopicPartition{Topic: "t", Partition: 0})
		mustSayUnavailableAndDeadline(t, "Consumer.Committed", err)
	})
	t.Run("AckConsumerPoll", func(t *testing.T) {
		t.Parallel()
		c, err := brook.NewAckConsumer(brook.WithBroker(dead), brook.WithGroup("g"), brook.WithTopics("t"))
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			_ = c.Close(ctx)
		}()
		_, err = c.Poll(unreachableCtx(t))
		mustSayUnavailableAndDeadline(t, "AckConsumer.Poll", err)
	})
	t.Run("Admin", func(t *testing.T) {
		t.Parallel()
		a, err := brook.NewAdmin(brook.WithBroker(dead))
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = a.Close(context.Background()) }()
		// Admin calls are not retried: the first failure returns at once.
		if _, err := a.ListTopics(unreachableCtx(t)); !errors.Is(err, brook.ErrBrokerUnavailable) {
			t.Fatalf("Admin.ListTopics: %v; want ErrBrokerUnavailable", err)
		}
	})
}

// An Admin call whose context has ended says so with the context's error.
func TestAdminCallWithAnEndedContextSaysDeadlineExceeded(t *testing.T) {
	a, err := brook.NewAdmin(brook.WithBroker(sharedBroker.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = a.Close(context.Background()) }()
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	if _, err := a.ListTopics(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("ListTopics: %v; want context.DeadlineExceeded", err)
	}
}
