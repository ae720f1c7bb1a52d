package brook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	grpcbackoff "google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

// AckConsumer is a member of an ack-mode group: queue semantics, like a
// Pub/Sub subscriber or a Kafka share consumer. The broker leases records to
// it over one AckService.Receive stream; each stays leased to this consumer
// for the group's ack.timeout.ms (30s by default) and is settled by Ack (never
// delivered again), Nack (delivered again, to any member, at once or after a
// delay), Reject (dead-lettered now), or its lease running out (delivered
// again). ExtendLease makes a lease run longer. After the group's
// max.delivery.attempts the broker dead-letters a record.
//
// The consumer creates the group in ack mode when it does not exist; such a
// group starts at the end of its topics (create it first with
// auto.offset.reset=earliest, for example with Admin.CreateGroup, to start at
// the beginning). The topics must exist.
//
// Batching: Ack, Nack, Reject and ExtendLease only queue the settle; queued
// settles go out together as offset ranges on the stream every
// WithAckFlushInterval, or as soon as WithAckMaxBatch are waiting. Flush sends
// what is waiting at once, in one unary Settle call, waits for the broker's
// answer to the settles sent in the background before it, and returns every
// one that did not apply. Refusals of background sends also go to
// WithAckFailureHandler as they come.
//
// Flow control: the broker keeps at most WithMaxOutstandingRecords (and
// WithMaxOutstandingBytes) records leased to this consumer and not settled;
// records polled and never settled hold it back until their leases run out.
//
// Broker restarts: when the stream breaks, the consumer opens it again by
// itself with exponential backoff (WithRetryBackoff); Poll just waits
// meanwhile, and queued settles wait for the new stream. Delivery is at least
// once: settles in flight when the stream broke may be lost, and leases do not
// survive a broker restart, so unsettled records come again with a higher
// DeliveryAttempt (settling an earlier copy may then fail with ErrNotLeased or
// ErrAlreadySettled). Without WithAckMemberID, records received but not yet
// returned by Poll are dropped when the stream breaks (the broker handed their
// leases back, so they come again).
//
// Errors that another try would meet again end the consumer (an unknown
// topic, a group in offset mode: ErrInconsistentGroupMode, another consumer
// taking over the same member id, refused credentials): Poll and Flush return
// them from then on.
//
// Every method is goroutine-safe: one goroutine may poll while workers ack;
// concurrent Polls each get different records.
type AckConsumer struct {
	cfg      ackConsumerConfig
	conn     *grpc.ClientConn
	ownsConn bool
	client   brookv1.AckServiceClient
	handler  func(*SettleError)
	pending  ackPending
	sent     ackSent // settles sent in the background, until the broker answers
	// sendSlot is held from taking settles out of pending until they are on
	// the stream (or back), so that Flush sees each settle queued or sent.
	sendSlot chan struct{}

	mu        sync.Mutex
	inbox     []*AckRecord
	stream    *ackStream    // the open stream; nil while (re)connecting
	changed   chan struct{} // closed and replaced when stream, member id or fatal change
	fatal     error
	streamSeq uint64
	// closeErrs: refusals that arrive once Close started, which Close returns
	// instead of giving them to the handler.
	closeErrs []error
	// failure: why the last stream failed or could not be opened; nil while one is up.
	failure error

	inboxSignal chan struct{} // one token: records may be waiting
	fatalCh     chan struct{} // closed when fatal is set
	closed      atomic.Bool
	closedCh    chan struct{} // closed when Close starts
	// lastStream: Close ends the stream now; a stream that ends is not opened
	// again (until then Close may wait for one).
	lastStream atomic.Bool
	flushKick  chan struct{} // one token: send what is waiting now

	runCtx      context.Context
	runCancel   context.CancelFunc
	runDone     chan struct{}
	flusherDone chan struct{}

	received, redelivered, queued, messages, calls, failures, reconnects atomic.Int64
}

// ackStream is one Receive stream. Sends are serialized here: a gRPC stream
// allows one sender at a time.
type ackStream struct {
	id       uint64
	cs       grpc.BidiStreamingClient[brookv1.ReceiveRequest, brookv1.ReceiveResponse]
	done     chan struct{} // closed when the stream ended
	err      error         // how it ended (nil: the broker completed it); read after done
	memberID string        // guarded by AckConsumer.mu; set once
	confirms bool          // the broker answers settle_seq; set with memberID

	sendMu     sync.Mutex
	halfClosed bool
}

// send sends one message; false when the stream is closing or broken (nothing sent).
func (s *ackStream) send(req *brookv1.ReceiveRequest) bool {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	select {
	case <-s.done:
		return false
	default:
	}
	if s.halfClosed {
		return false
	}
	return s.cs.Send(req) == nil
}

// closeSend ends our side: the broker applies what was sent, then ends the stream.
func (s *ackStream) closeSend() {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	if !s.halfClosed {
		s.halfClosed = true
		_ = s.cs.CloseSend()
	}
}

// NewAckConsumer checks every option (one *ConfigError naming all the
// invalid ones, matching ErrInvalidConfig), then starts receiving in the
// background. WithBroker (or WithConn), WithGroup and WithTopics are required.
// Errors from the broker come from Poll.
func NewAckConsumer(opts ...AckConsumerOption) (*AckConsumer, error) {
	cfg := ackDefaultConfig()
	for _, o := range opts {
		if o != nil {
			o.applyAckConsumer(&cfg)
		}
	}
	var p problems
	cfg.validate(&p)
	if err := p.err("ack consumer"); err != nil {
		return nil, err
	}
	if cfg.conn.shared == nil {
		// gRPC's own reconnect backoff (1s doubling to 2 min) would hold the stream
		// back long after the broker is back; use the consumer's bounds (the
		// caller's dial options come after, so they still win).
		bc := grpcbackoff.DefaultConfig
		bc.BaseDelay, bc.MaxDelay = cfg.backoffMin, cfg.backoffMax
		cfg.conn.dialOptions = append([]grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{
			Backoff: bc, MinConnectTimeout: 20 * time.Second,
		})}, cfg.conn.dialOptions...)
	}
	conn, owned, err := cfg.conn.dial()
	if err != nil {
		return nil, fmt.Errorf("brook: ack consumer: %w", err)
	}
	c := &AckConsumer{
		cfg:         cfg,
		conn:        conn,
		ownsConn:    owned,
		client:      brookv1.NewAckServiceClient(conn),
		handler:     cfg.failureHandler,
		changed:     make(chan struct{}),
		inboxSignal: make(chan struct{}, 1),
		fatalCh:     make(chan struct{}),
		closedCh:    make(chan struct{}),
		flushKick:   make(chan struct{}, 1),
		sendSlot:    make(chan struct{}, 1),
		runDone:     make(chan struct{}),
		flusherDone: make(chan struct{}),
	}
	if c.handler == nil {
		group, log := cfg.group, cfg.conn.logger
		c.handler = func(e *SettleError) {
			log.Warn("brook: ack consumer: settle not applied", "group", group, "error", e.Error())
		}
	}
	c.runCtx, c.runCancel = context.WithCancel(context.Background())
	go c.run()
	go c.flushLoop()
	return c, nil
}

// Poll returns records leased to this consumer: it waits for the first until
// ctx ends, then returns it with those already received, at most
// WithAckMaxPollRecords. When ctx ends first it returns ctx's error, wrapping
// why the last stream failed when none is up (errors.Is(err,
// ErrBrokerUnavailable)), and no records; after Close, ErrClientClosed; once
// an error ended the consumer, that error. While the stream is being opened
// again, Poll just waits.
func (c *AckConsumer) Poll(ctx context.Context) ([]*AckRecord, error) {
	for {
		if c.closed.Load() {
			return nil, ErrClientClosed
		}
		c.mu.Lock()
		if c.fatal != nil {
			err := c.fatal
			c.mu.Unlock()
			return nil, err
		}
		if n := min(len(c.inbox), c.cfg.maxPollRecords); n > 0 {
			out := make([]*AckRecord, n)
			copy(out, c.inbox)
			clear(c.inbox[:n])
			c.inbox = c.inbox[n:]
			more := len(c.inbox) > 0
			c.mu.Unlock()
			if more {
				c.signalInbox() // for another Poll waiting
			}
			return out, nil
		}
		c.mu.Unlock()
		select {
		case <-c.inboxSignal:
		case <-c.fatalCh:
		case <-c.closedCh:
		case <-ctx.Done():
			return nil, ctxError(ctx.Err(), c.lastFailure())
		}
	}
}

// Ack settles the record: it is done and never delivered again. The ack is
// queued and sent with the next batch (see Flush); the call that fills a
// batch (WithAckMaxBatch) wakes the sending goroutine, and never waits for the stream.
// Ack, Nack, Reject and ExtendLease fail only for a nil record, an argument
// out of range (ErrInvalidRequest) or after Close (ErrClientClosed); what the
// broker refuses comes from Flush or the failure handler.
func (c *AckConsumer) Ack(rec *AckRecord) error {
	return c.queue(rec, ackKindAck, 0)
}

// Nack hands the record back: it is delivered again (to any member) no
// sooner than delay (0: at once; at most 24h).
func (c *AckConsumer) Nack(rec *AckRecord, delay time.Duration) error {
	if delay < 0 || delay > ackMaxNackDelay {
		return fmt.Errorf("%w: nack delay %v not in [0, %v]", ErrInvalidRequest, delay, ackMaxNackDelay)
	}
	return c.queue(rec, ackKindNack, int32(delay.Milliseconds()))
}

// Reject dead-letters the record now (to the group's dead.letter.topic,
// <group>.dlq by default, with reason "rejected"), whatever its attempt count.
func (c *AckConsumer) Reject(rec *AckRecord) error {
	return c.queue(rec, ackKindReject, 0)
}

// ExtendLease makes the record's lease run for lease (1ms .. 1h) from when
// the broker gets the extension.
func (c *AckConsumer) ExtendLease(rec *AckRecord, lease time.Duration) error {
	if lease < leaseMin || lease > leaseMax {
		return fmt.Errorf("%w: lease %v not in [%v, %v]", ErrInvalidRequest, lease, leaseMin, leaseMax)
	}
	return c.queue(rec, ackKindExtend, int32(lease.Milliseconds()))
}

// Flush sends every queued settle now, in one unary Settle call, waits for
// the broker's answer to every settle queued before the call, whoever sent it
// (this call, or the background sender on the stream), and returns those that
// did not apply: nil when the broker applied them all, else the errors.Join
// of one *SettleError per offset range (match them with errors.Is(err,
// ErrNotLeased) and the like, or list them with SettleErrors). A range sent
// in the background whose stream broke, or that got no answer before ctx
// ended, matches ErrSettleOutcomeUnknown. Each range is returned by one Flush
// (refusals that came before the call included, since the previous Flush);
// refusals of background sends also go to WithAckFailureHandler as they
// come. Without WithAckMemberID it first waits (until ctx ends) for the
// stream to be open. When the Settle call itself fails (for example
// ErrBrokerUnavailable, retriable) its error is returned and its settles stay
// queued for the next send.
func (c *AckConsumer) Flush(ctx context.Context) error {
	if c.closed.Load() {
		return ErrClientClosed
	}
	select { // no background send is half done while we look
	case c.sendSlot <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	sentBefore := c.sent.last()
	b := c.pending.drain()
	<-c.sendSlot
	var errs []error
	if b.count > 0 {
		member, err := c.awaitMember(ctx)
		if err != nil {
			c.pending.restore(b)
			return err
		}
		errs = append(errs, c.settleNow(ctx, member, b))
	}
	errs = append(errs, c.sent.collect(ctx, sentBefore))
	return errors.Join(errs...)
}

// MemberID is the member id of the current stream (WithAckMemberID's when
// set), or "" while no stream is open.
func (c *AckConsumer) MemberID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stream != nil {
		return c.stream.memberID
	}
	return ""
}

// Stats returns the consumer's counters.
func (c *AckConsumer) Stats() AckStats {
	return AckStats{
		ReceivedRecords:    c.received.Load(),
		RedeliveredRecords: c.redelivered.Load(),
		SettlesQueued:      c.queued.Load(),
		SettleMessages:     c.messages.Load(),
		SettleCalls:        c.calls.Load(),
		SettleFailures:     c.failures.Load(),
		Reconnects:         c.reconnects.Load(),
	}
}

// Close sends every settle queued before it, ends the stream, waits until
// the broker has applied them, then stops every goroutine of the consumer and
// closes the connection it made (not one given with WithConn). ctx bounds the
// waits for the broker; a ctx without a deadline gets one of 30 s.
//
// The last settles go on the stream, and the stream's clean end confirms
// every settle sent on it. Without WithAckMemberID they need a stream whose
// member holds the records: while the stream is being opened again (the
// broker restarts, the connection dropped) Close waits for it until ctx ends.
// With WithAckMemberID they go in a Settle call when no stream is open.
//
// Close returns nil when the broker applied every settle queued before it.
// Otherwise its error (an errors.Join) holds one *SettleError per offset
// range not applied (brook.SettleErrors lists them): refused by the broker
// (errors.Is(err, ErrLeaseExpired) and the like), not sent
// (ErrSettleNotSent: no stream before ctx ended, or an error ended the
// consumer; those records are delivered again), or sent without the broker
// confirming it (ErrSettleOutcomeUnknown: the stream or call failed first).
// Refusals that arrive while Close runs are returned, not given to
// WithAckFailureHandler. Settles sent in the background before Close are
// confirmed by the same end of the stream; as with any broken stream, those
// sent just before it broke may be lost unreported (at least once).
//
// Records polled and not settled are handed back by the broker when the
// stream ends; with WithAckMemberID they stay leased until their leases run
// out instead, and Close nacks the records received but never returned by
// Poll. Close after Close returns nil.
func (c *AckConsumer) Close(ctx context.Context) error {
	if !c.closed.CompareAndSwap(false, true) {
		return nil
	}
	close(c.closedCh)
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, ackDefaultCloseTimeout)
		defer cancel()
	}
	var errs []error
	// The flusher stops first: from here on only Close sends settles.
	select {
	case <-c.flusherDone:
	case <-ctx.Done():
		// The flusher is stuck in a Send the broker does not read: ending the
		// stream's context unblocks it.
		c.runCancel()
		<-c.flusherDone
		errs = append(errs, fmt.Errorf("brook: ack consumer close: the broker read nothing: %w", ctx.Err()))
	}
	ended, err := c.endStream(ctx)
	errs = append(errs, err)
	c.runCancel() // no stream is opened again
	<-c.runDone
	errs = append(errs, c.handBack(ctx, ended))
	c.mu.Lock()
	errs = append(errs, c.closeErrs...)
	c.mu.Unlock()
	if c.ownsConn {
		if err := c.conn.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// --- internals

func (c *AckConsumer) queue(rec *AckRecord, kind ackKind, millis int32) error {
	if rec == nil {
		return fmt.Errorf("%w: nil record", ErrInvalidRequest)
	}
	if c.closed.Load() {
		return ErrClientClosed
	}
	n := c.pending.add(ackKey{topic: rec.Topic, partition: rec.Partition, kind: kind, millis: millis}, rec.Offset)
	c.queued.Add(1)
	if n >= c.cfg.maxBatch || c.cfg.flushInterval == 0 {
		c.kickFlush() // the flusher sends: Ack never blocks on the stream's flow control
	}
	return nil
}

// sendPending sends what is queued on the stream once the broker accepted the
// stream (it answered the member id); it stays queued otherwise.
func (c *AckConsumer) sendPending() {
	c.mu.Lock()
	s := c.stream
	ready := s != nil && s.memberID != ""
	confirms := ready && s.confirms
	c.mu.Unlock()
	if !ready || c.pending.size() == 0 {
		return
	}
	select {
	case c.sendSlot <- struct{}{}:
	case <-c.closedCh:
		return
	}
	defer func() { <-c.sendSlot }()
	b := c.pending.drain()
	if b.count == 0 {
		return
	}
	req := b.receiveRequest()
	if confirms {
		req.SettleSeq = c.sent.track(s, b) // Flush waits for the broker's answer
	}
	ok := s.send(req)
	if ok {
		c.messages.Add(1)
	}
	if req.SettleSeq != 0 && !c.sent.sendDone(req.SettleSeq, ok) {
		return // answered already: sent after all
	}
	if !ok {
		c.pending.restore(b)
	}
}

// settleNow sends a batch in one Settle call and returns its refusals; when
// the call fails the batch goes back to the queue.
func (c *AckConsumer) settleNow(ctx context.Context, member string, b ackBatch) error {
	resp, err := c.client.Settle(ctx, b.settleRequest(c.cfg.group, member))
	if err != nil {
		c.pending.restore(b)
		return callError(err)
	}
	c.calls.Add(1)
	c.failures.Add(int64(len(resp.GetFailures())))
	return settleJoin(resp.GetFailures())
}

// awaitMember is the member id to settle as: WithAckMemberID's, or the open
// stream's once the broker answered it.
func (c *AckConsumer) awaitMember(ctx context.Context) (string, error) {
	if c.cfg.memberID != "" {
		return c.cfg.memberID, nil
	}
	for {
		c.mu.Lock()
		if c.fatal != nil {
			err := c.fatal
			c.mu.Unlock()
			return "", err
		}
		if c.stream != nil && c.stream.memberID != "" {
			m := c.stream.memberID
			c.mu.Unlock()
			return m, nil
		}
		changed := c.changed
		c.mu.Unlock()
		select {
		case <-changed:
		case <-c.closedCh:
			return "", ErrClientClosed
		case <-ctx.Done():
			return "", ctxError(ctx.Err(), c.lastFailure())
		}
	}
}

// endStream is Close's part with the stream: once one is open with a member
// id (waiting for it until ctx ends, when settles wait and no member id of
// our own can settle them), the last settles go out on it in one message,
// then the stream is half-closed; its clean end confirms every settle sent on
// it. ended: Close ended a stream so.
func (c *AckConsumer) endStream(ctx context.Context) (ended bool, err error) {
	stop := context.AfterFunc(ctx, c.runCancel) // a Send the broker does not read ends with ctx
	defer stop()
	var broken *ackStream
	for {
		needStream := c.pending.size() > 0 && c.cfg.memberID == ""
		s := c.readyStream()
		if s == broken {
			s = nil
		}
		if s == nil && needStream && c.fatalError() == nil {
			c.log().Info("brook: ack consumer: closing; waiting for a stream to the broker to send the last settles",
				"group", c.cfg.group, "settles", c.pending.size())
			s = c.awaitReadyStream(ctx, broken)
		}
		if s == nil {
			return false, nil // what is left goes in a Settle call, or is reported as not sent
		}
		last := c.pending.drain()
		if last.count > 0 {
			if !s.send(last.receiveRequest()) {
				c.pending.restore(last) // the stream broke meanwhile: wait for the next one
				broken = s
				continue
			}
			c.messages.Add(1)
		}
		c.lastStream.Store(true)
		s.closeSend()
		select {
		case <-s.done:
			if s.err != nil {
				return true, last.settleErrors(fmt.Errorf("%w: sent, but the stream ended before the broker confirmed it: %w",
					ErrSettleOutcomeUnknown, callError(s.err)))
			}
			return true, nil
		case <-ctx.Done():
			return true, last.settleErrors(fmt.Errorf("%w: sent, but the broker did not end the stream before ctx ended: %w",
				ErrSettleOutcomeUnknown, ctx.Err()))
		}
	}
}

// lastFailure is why the last stream failed or could not be opened, or nil while one is up.
func (c *AckConsumer) lastFailure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failure
}

func (c *AckConsumer) fatalError() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fatal
}

// readyStream is the open stream once the broker answered its member id, or nil.
func (c *AckConsumer) readyStream() *ackStream {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stream != nil && c.stream.memberID != "" {
		return c.stream
	}
	return nil
}

// awaitReadyStream waits for a stream the broker accepted (other than
// broken); nil when ctx ends first or an error ended the consumer.
func (c *AckConsumer) awaitReadyStream(ctx context.Context, broken *ackStream) *ackStream {
	for {
		c.mu.Lock()
		s, fatal, changed := c.stream, c.fatal, c.changed
		ready := s != nil && s.memberID != "" && s != broken
		c.mu.Unlock()
		if ready {
			return s
		}
		if fatal != nil {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil
		}
	}
}

// handBack, after the stream ended: settles Close could not send on it
// (queued meanwhile, or no stream came) go in a Settle call as the member
// named by WithAckMemberID, whose leases outlive the stream, with the records
// never polled (nacked); without a member id of our own they are reported as
// not sent (the broker handed every lease back already).
func (c *AckConsumer) handBack(ctx context.Context, streamEnded bool) error {
	c.mu.Lock()
	inbox, fatal := c.inbox, c.fatal
	c.inbox = nil
	c.mu.Unlock()
	left := c.pending.drain()
	if c.cfg.memberID == "" {
		var why error
		switch {
		case fatal != nil:
			why = fmt.Errorf("%w: the consumer stopped: %w", ErrSettleNotSent, fatal)
		case streamEnded:
			why = fmt.Errorf("%w: queued while the consumer was closing", ErrSettleNotSent)
		default:
			why = fmt.Errorf("%w: no stream to the broker before ctx ended: %w", ErrSettleNotSent, ctx.Err())
		}
		return left.settleErrors(why)
	}
	err := c.settleAsMember(ctx, left)
	var nacks ackBatch
	for _, r := range inbox {
		nacks.add(ackKey{topic: r.Topic, partition: r.Partition, kind: ackKindNack}, r.Offset)
	}
	if herr := c.settleAsMember(ctx, nacks); herr != nil {
		c.log().Warn("brook: ack consumer: records never polled were not all handed back; they come again when their leases run out",
			"group", c.cfg.group, "error", herr)
	}
	return err
}

// settleAsMember sends a batch in one Settle call as WithAckMemberID's
// member: the refusals, or the whole batch as not applied (the broker refused
// the call) or of unknown outcome (the call failed on the way).
func (c *AckConsumer) settleAsMember(ctx context.Context, b ackBatch) error {
	if b.count == 0 {
		return nil
	}
	resp, err := c.client.Settle(ctx, b.settleRequest(c.cfg.group, c.cfg.memberID), grpc.WaitForReady(true))
	if err != nil {
		switch status.Code(err) {
		case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled, codes.Unknown, codes.Internal, codes.Aborted:
			return b.settleErrors(fmt.Errorf("%w: the Settle call failed: %w", ErrSettleOutcomeUnknown, callError(err)))
		}
		return b.settleErrors(callError(err))
	}
	c.calls.Add(1)
	c.failures.Add(int64(len(resp.GetFailures())))
	return settleJoin(resp.GetFailures())
}

func (c *AckConsumer) signalInbox() {
	select {
	case c.inboxSignal <- struct{}{}:
	default:
	}
}

func (c *AckConsumer) kickFlush() {
	select {
	case c.flushKick <- struct{}{}:
	default:
	}
}

// broadcastLocked wakes the waiters for a stream; c.mu must be held.
func (c *AckConsumer) broadcastLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// flushLoop sends queued settles every flush interval, and when asked to.
func (c *AckConsumer) flushLoop() {
	defer close(c.flusherDone)
	var tick <-chan time.Time
	if c.cfg.flushInterval > 0 {
		t := time.NewTicker(c.cfg.flushInterval)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-c.closedCh:
			return
		case <-tick:
			c.sendPending()
		case <-c.flushKick:
			c.sendPending()
		}
	}
}

// run opens the Receive stream, and again each time it breaks, until Close
// or an error that ends the consumer. A break is logged once at Info on the
// WithLogger logger, the failed tries at Debug, and the return at Info.
func (c *AckConsumer) run() {
	defer close(c.runDone)
	bo := newBackoff(c.cfg.backoffMin, c.cfg.backoffMax)
	broken := false
	for {
		up, err := c.receive(bo, broken)
		if c.runCtx.Err() != nil || c.lastStream.Load() {
			return // Close is done with the stream
		}
		if err != nil && ackEndsTheConsumer(err) {
			c.mu.Lock()
			c.fatal = callError(err)
			close(c.fatalCh)
			c.broadcastLocked()
			c.mu.Unlock()
			return
		}
		why := "the broker ended it"
		if err != nil {
			why = callError(err).Error()
			if saysMoreThanCtx(callError(err)) { // keep the reason, not a cut wait's deadline
				c.mu.Lock()
				c.failure = callError(err)
				c.mu.Unlock()
			}
		}
		if up {
			c.log().Info("brook: ack consumer: the stream ended; opening it again", "group", c.cfg.group, "reason", why)
		} else {
			c.log().Debug("brook: ack consumer: cannot open the stream", "group", c.cfg.group, "reason", why)
		}
		broken = broken || up
		c.reconnects.Add(1)
		if bo.wait(c.runCtx) != nil {
			return
		}
	}
}

// receive runs one stream until it ends: up when the broker accepted it (it
// answered the member id), err nil when the broker completed it.
func (c *AckConsumer) receive(bo *backoff, again bool) (up bool, err error) {
	ctx, cancel := context.WithCancel(c.runCtx)
	defer cancel()
	cs, err := c.client.Receive(ctx)
	if err != nil {
		return false, err
	}
	c.mu.Lock()
	c.streamSeq++
	s := &ackStream{id: c.streamSeq, cs: cs, done: make(chan struct{})}
	c.stream = s
	c.broadcastLocked()
	c.mu.Unlock()
	defer func() { c.forgetStream(s, err) }()

	s.send(&brookv1.ReceiveRequest{
		Group:    c.cfg.group,
		Topics:   c.cfg.topics,
		ClientId: c.cfg.memberID,
		FlowControl: &brookv1.FlowControl{
			MaxOutstandingRecords: c.cfg.maxOutstandingRecords,
			MaxOutstandingBytes:   c.cfg.maxOutstandingBytes,
		},
	})
	for {
		resp, err := cs.Recv()
		if err == io.EOF {
			return up, nil
		}
		if err != nil {
			return up, err
		}
		if m := resp.GetMemberId(); m != "" && !up {
			up = true
			c.mu.Lock()
			s.memberID, s.confirms = m, resp.GetConfirmsSettles()
			c.failure = nil
			c.broadcastLocked()
			c.mu.Unlock()
			bo.reset()
			if again {
				c.log().Info("brook: ack consumer: receiving again", "group", c.cfg.group, "member", m)
			}
			if c.pending.size() > 0 {
				c.kickFlush() // settles that waited for this stream
			}
		}
		c.deliver(s, resp.GetBatches())
		var refused []*SettleError
		for _, f := range resp.GetFailures() {
			c.failures.Add(1)
			e := settleErrorOf(f)
			refused = append(refused, e)
			c.refused(e)
		}
		if seq := resp.GetSettledSeq(); seq > 0 {
			c.sent.answered(s, seq, refused) // for Flush
		}
	}
}

// refused tells of a refusal sent in the background: to the handler, or once
// Close started, to Close's error.
func (c *AckConsumer) refused(e *SettleError) {
	if c.closed.Load() {
		c.mu.Lock()
		c.closeErrs = append(c.closeErrs, e)
		c.mu.Unlock()
		return
	}
	c.handler(e)
}

// deliver puts a response's records in the inbox.
func (c *AckConsumer) deliver(s *ackStream, batches []*brookv1.LeasedRecords) {
	if len(batches) == 0 {
		return
	}
	var got []*AckRecord
	for _, b := range batches {
		for _, lr := range b.GetRecords() {
			r := &AckRecord{
				Record:          *fromProtoRecord(b.GetTopic(), b.GetPartition(), lr.GetRecord()),
				DeliveryAttempt: lr.GetDeliveryAttempt(),
				LeaseDeadline:   time.UnixMilli(lr.GetLeaseDeadlineMs()),
				stream:          s.id,
			}
			if r.DeliveryAttempt > 1 {
				c.redelivered.Add(1)
			}
			got = append(got, r)
		}
	}
	c.received.Add(int64(len(got)))
	c.mu.Lock()
	c.inbox = append(c.inbox, got...)
	c.mu.Unlock()
	c.signalInbox()
}

// forgetStream forgets a stream that ended (err nil: the broker completed
// it). Without a member id its records not yet polled are dropped: the broker
// handed their leases back.
func (c *AckConsumer) forgetStream(s *ackStream, err error) {
	s.err = err
	close(s.done)
	c.sent.ended(s)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stream == s {
		c.stream = nil
		c.broadcastLocked()
	}
	if c.cfg.memberID == "" && !c.closed.Load() {
		kept := c.inbox[:0]
		for _, r := range c.inbox {
			if r.stream != s.id {
				kept = append(kept, r)
			}
		}
		clear(c.inbox[len(kept):])
		c.inbox = kept
	}
}

// ackEndsTheConsumer: errors another try would meet again.
func ackEndsTheConsumer(err error) bool {
	switch status.Code(err) {
	case codes.NotFound, codes.FailedPrecondition, codes.InvalidArgument, codes.PermissionDenied,
		codes.Unauthenticated, codes.Aborted, codes.AlreadyExists, codes.Unimplemented, codes.OutOfRange:
		return true
	}
	return false
}
