package brook

import (
	"context"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

// produceStream is one ProduceStream call and the goroutine that reads its answers.
type produceStream struct {
	stream brookv1.ProduceService_ProduceStreamClient
	cancel context.CancelFunc
	// events carries the answers in order, then the error that ended the
	// stream. Its capacity exceeds the requests that can be in flight, so the
	// reader never blocks and always ends.
	events   chan streamEvent
	recvDone chan struct{}
}

type streamEvent struct {
	resp *brookv1.ProduceStreamResponse
	err  error
}

func (s *sender) openStream(ctx context.Context) error {
	sctx, cancel := context.WithCancel(ctx)
	st, err := s.client.ProduceStream(sctx)
	if err != nil {
		cancel()
		return callError(err)
	}
	ps := &produceStream{stream: st, cancel: cancel, events: make(chan streamEvent, maxInFlightRequests+2),
		recvDone: make(chan struct{})}
	go ps.receive()
	s.stream = ps
	return nil
}

func (ps *produceStream) receive() {
	defer close(ps.recvDone)
	for {
		resp, err := ps.stream.Recv()
		if err != nil {
			ps.events <- streamEvent{err: callError(err)}
			return
		}
		ps.events <- streamEvent{resp: resp}
	}
}

// closeStream ends the current stream and waits for its reader.
func (s *sender) closeStream() {
	if s.stream == nil {
		return
	}
	_ = s.stream.stream.CloseSend()
	s.stream.cancel()
	<-s.stream.recvDone
	s.stream = nil
}
