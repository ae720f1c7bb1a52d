package brook

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

// ackStalledBroker accepts the Receive stream, names the member, then reads nothing more.
type ackStalledBroker struct {
	brookv1.UnimplementedAckServiceServer
}

func (ackStalledBroker) Receive(s brookv1.AckService_ReceiveServer) error {
	if _, err := s.Recv(); err != nil {
		return err
	}
	if err := s.Send(&brookv1.ReceiveResponse{MemberId: "m1"}); err != nil {
		return err
	}
	<-s.Context().Done()
	return s.Context().Err()
}

// A broker that stops reading the stream (its sends block on flow control)
// holds neither Ack (the flusher sends) nor Close beyond its context.
func TestAckConsumerStaysResponsiveWhenTheBrokerReadsNothing(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	brookv1.RegisterAckServiceServer(srv, ackStalledBroker{})
	go func() { _ = srv.Serve(lis) }()
	defer srv.Stop()
	c, err := NewAckConsumer(WithBroker(lis.Addr().String()), WithGroup("g"), WithTopics("t"), WithAckMaxBatch(1000))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for c.MemberID() == "" && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	queued := make(chan error, 1)
	go func() {
		// Non-consecutive offsets: a range each, megabytes of settles the broker never reads.
		for i := int64(0); i < 600_000; i += 2 {
			if err := c.Ack(&AckRecord{Record: Record{Topic: "t", Partition: 0, Offset: i}}); err != nil {
				queued <- err
				return
			}
		}
		queued <- nil
	}()
	select {
	case err := <-queued:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("Ack blocked on a stream the broker does not read")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	closed := make(chan error, 1)
	go func() { closed <- c.Close(ctx) }()
	select {
	case err := <-closed:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Close: %v, want the context's deadline", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("Close(ctx of 1 s) did not return")
	}
}
