package brook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

// Consumer reads records by offset, like Kafka's consumer: either as a member
// of an offset-mode consumer group (WithGroup and WithTopics: the broker
// assigns partitions to members, the group's committed offsets say where each
// partition starts), or alone (Assign: the application picks the partitions;
// no membership, no rebalances).
//
//	c, err := brook.NewConsumer(brook.WithBroker("localhost:7070"),
//		brook.WithGroup("billing"), brook.WithTopics("orders"),
//		brook.WithResetPosition(brook.Earliest))
//	if err != nil { ... }
//	defer c.Close(context.Background()) // commits the positions and leaves the group
//	for {
//		records, err := c.Poll(ctx)
//		if err != nil { ... } // ctx ended, the consumer was closed, or a broker error
//		for _, r := range records { process(r) }
//	} // auto commit: what Poll returned is committed by a later Poll, on a rebalance and on Close
//
// Groups. The first Poll joins the group; a goroutine then heartbeats. When
// another member joins or leaves, a later Poll runs WithOnRevoked's callback
// (the member still owns the partitions and can commit), joins again and runs
// WithOnAssigned's: the rebalance is eager, unless WithRebalanceProtocol
// chooses RebalanceCooperative (the member keeps its partitions while it
// rejoins and hears only of those that move). When the member was removed
// (its session ran out, the broker restarted), its partitions may be another
// member's already: Poll runs WithOnLost's callback and joins as a new
// member. Commits carry the member's generation, so a commit of a member that
// was removed meanwhile is refused (ErrCommitFailed). A static member
// (WithGroupInstanceID) fenced by a newer one with the same instance id does
// not join again: after WithOnLost, every Poll returns ErrMemberReplaced.
//
// Positions. A newly assigned partition starts at the group's committed
// offset, else at WithResetPosition. Poll moves the positions past the records
// it returns; a commit stores the positions (the next offset to read, as in
// Kafka). Delivery is at least once.
//
// The broker going away. Poll retries with backoff (WithRetryBackoff) while
// the broker cannot be reached, until its context ends; when the broker is
// back the member joins again and reads on from the committed offsets. The
// other blocking calls retry the same way while the broker is unreachable.
//
// Goroutines. Every method may be called from any goroutine. One Poll runs
// at a time (a second waits); the rebalance callbacks run inside Poll, on its
// goroutine, and may call any method but Poll and Close. Close from another
// goroutine makes a blocked Poll return ErrClientClosed at once.
type Consumer struct {
	cfg     consumerConfig
	log     *slog.Logger
	conn    *grpc.ClientConn
	owned   bool
	groups  brookv1.GroupServiceClient
	fetches brookv1.FetchServiceClient
	// subscribed: WithGroup and WithTopics; member is then non-nil.
	subscribed bool
	member     *consumerMembership
	unknown    consumerUnknownTopics

	// pollSem lets one Poll (or Close) run at a time; the fields below it are its holder's.
	pollSem        chan struct{}
	join           *consumerJoin
	nextAutoCommit time.Time

	// closing ends when Close starts (a Poll then returns); lifetime when it
	// ends (background calls stop).
	closing      context.Context
	startClosing context.CancelFunc
	lifetime     context.Context
	endLifetime  context.CancelFunc
	closeDone    chan struct{}
	goroutines   sync.WaitGroup
	callbacksMu  sync.Mutex // serializes the callbacks of async commits

	stats consumerCounters

	mu            sync.Mutex // guards everything below
	parts         consumerPartitions
	manual        bool
	closeStarted  bool
	closed        bool
	asyncInflight int
	asyncIdle     chan struct{}
	asyncDone     []func()
}

// ConsumerGroupMetadata is the membership a consumer holds.
type ConsumerGroupMetadata struct {
	Group string
	// MemberID is "" and Generation -1 while the consumer holds no current
	// assignment (before the first join, during an eager rebalance, after a loss).
	MemberID   string
	Generation int32
}

// NewConsumer makes a consumer. Every option is checked at once: an invalid
// set gives one *ConfigError (matching ErrInvalidConfig) naming each problem.
// No call to the broker is made before Poll.
func NewConsumer(opts ...ConsumerOption) (*Consumer, error) {
	cfg := consumerDefaultConfig()
	for _, o := range opts {
		if o == nil {
			cfg.nilOptions++
			continue
		}
		o.applyConsumer(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	var topics []string
	for _, t := range cfg.topics {
		if !slices.Contains(topics, t) {
			topics = append(topics, t)
		}
	}
	cfg.topics = topics
	conn, owned, err := cfg.conn.dial()
	if err != nil {
		return nil, err
	}
	c := &Consumer{
		cfg:        cfg,
		log:        cfg.conn.logger,
		conn:       conn,
		owned:      owned,
		groups:     brookv1.NewGroupServiceClient(conn),
		fetches:    brookv1.NewFetchServiceClient(conn),
		subscribed: len(cfg.topics) > 0 || cfg.topicPattern != "",
		pollSem:    make(chan struct{}, 1),
		closeDone:  make(chan struct{}),
	}
	c.closing, c.startClosing = context.WithCancel(context.Background())
	c.lifetime, c.endLifetime = context.WithCancel(context.Background())
	if c.subscribed {
		c.member = consumerNewMembership(c)
	}
	return c, nil
}

// spawn runs f on a goroutine Close waits for; false once Close stopped them.
func (c *Consumer) spawn(f func()) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.goroutines.Add(1)
	go func() {
		defer c.goroutines.Done()
		f()
	}()
	return true
}

func (c *Consumer) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// scoped is ctx also ended by stop (c.closing or c.lifetime) with ErrClientClosed as its cause.
func (c *Consumer) scoped(ctx context.Context, stop context.Context) (context.Context, context.CancelFunc) {
	return scoped(ctx, stop)
}

// Poll joins or rejoins the group when needed (running the rebalance
// callbacks), then returns the records fetched from the assigned partitions,
// at most WithMaxPollRecords. It blocks until there is at least one record,
// the consumer is closed (ErrClientClosed), or ctx ends: then it returns
// ctx's error, wrapping the last failure when the broker could not be reached
// meanwhile (errors.Is(err, ErrBrokerUnavailable)). Retriable failures are
// retried with backoff; other broker errors are returned at once, with no
// position moved. When ctx ends while a rebalance is under way, the join goes
// on in the background and the next Poll completes it.
func (c *Consumer) Poll(ctx context.Context) ([]*Record, error) {
	select {
	case c.pollSem <- struct{}{}:
	case <-c.closing.Done():
		return nil, ErrClientClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-c.pollSem }()
	if c.closing.Err() != nil {
		return nil, ErrClientClosed
	}
	c.mu.Lock()
	manual := c.manual
	c.mu.Unlock()
	if !c.subscribed && !manual {
		return nil, errors.New("brook: Poll needs WithGroup and WithTopics (or WithTopicPattern), or partitions given to Assign")
	}
	ctx, stop := c.scoped(ctx, c.closing)
	defer stop()
	if c.member != nil {
		c.member.pollStarted()
		defer c.member.pollEnded()
	}
	c.runAsyncCallbacks()
	bo := newBackoff(c.cfg.backoffMin, c.cfg.backoffMax)
	var last error
	for {
		records, err := c.pollOnce(ctx)
		if err == nil {
			if last != nil {
				c.log.Info("brook: the broker answers again", "group", c.cfg.group)
				last = nil
				bo.reset()
			}
			if len(records) > 0 {
				return records, nil
			}
			if ctx.Err() != nil {
				return nil, consumerCtxErr(ctx, nil)
			}
			continue
		}
		if ctx.Err() != nil {
			return nil, consumerCtxErr(ctx, last)
		}
		if !consumerPollRetriable(err) && !(c.subscribed && consumerTopicGone(err)) {
			return nil, err
		}
		if last == nil {
			c.log.Warn("brook: poll failed; retrying", "group", c.cfg.group, "error", err)
		}
		last = err
		if consumerUnreachable(err) {
			c.conn.ResetConnectBackoff() // our backoff paces the retries, not gRPC's (up to 2 min)
		}
		if bo.wait(ctx) != nil {
			return nil, consumerCtxErr(ctx, last)
		}
	}
}

// pollOnce is one round: auto commit, membership, positions, one fetch.
func (c *Consumer) pollOnce(ctx context.Context) ([]*Record, error) {
	c.maybeAutoCommit(ctx)
	if c.subscribed {
		if err := c.ensureMember(ctx); err != nil {
			return nil, err
		}
	}
	c.mu.Lock()
	refs := c.parts.withoutPosition()
	c.mu.Unlock()
	if err := c.resolvePositions(ctx, refs); err != nil {
		return nil, err
	}
	return c.fetchOnce(ctx)
}

// ensureMember acts on what the heartbeat goroutine noticed, then joins when
// the member holds no assignment. On the polling goroutine.
func (c *Consumer) ensureMember(ctx context.Context) error {
	m := c.member
	for {
		if c.join != nil && c.join.cooperative {
			select {
			case <-c.join.done:
			default:
				return nil // a cooperative rejoin is under way: fetch what the member owns meanwhile
			}
			j := c.join
			c.join = nil
			if err := c.cooperativeAnswer(ctx, j); err != nil {
				return err
			}
			continue
		}
		if c.join != nil {
			select {
			case <-c.join.done:
			case <-ctx.Done():
				return ctx.Err() // the join goes on; the next Poll takes its answer
			}
			j := c.join
			c.join = nil
			if j.err != nil {
				return j.err
			}
			c.mu.Lock()
			c.parts.assign(j.assigned)
			c.mu.Unlock()
			c.stats.rebalances.Add(1)
			c.nextAutoCommit = time.Now().Add(c.cfg.autoCommitInterval)
			c.callback(ctx, c.cfg.onAssigned, j.assigned)
		}
		switch m.pending() {
		case consumerNothingPending:
			return nil
		case consumerLostPending:
			c.mu.Lock()
			gone := c.parts.clear()
			c.mu.Unlock()
			m.acknowledgeLost()
			replaced := m.replacedErr() // a replaced member does not join again: its own warning says so
			if len(gone) > 0 {
				if replaced == nil {
					c.log.Warn("brook: partitions lost (removed from the group or fenced); joining again",
						"group", c.cfg.group, "partitions", gone)
				}
				c.callback(ctx, c.cfg.onLost, gone)
			}
			if replaced != nil {
				return replaced
			}
		case consumerRevokePending:
			if c.cfg.rebalanceProtocol == RebalanceCooperative {
				c.mu.Lock()
				owned := c.parts.assigned()
				c.mu.Unlock()
				c.join = m.startJoin(append([]TopicPartition{}, owned...)) // nothing is revoked before the broker says what moves
				continue
			}
			if c.cfg.autoCommitOn() {
				c.autoCommitQuietly(ctx, true)
				if m.pending() == consumerLostPending {
					continue // the commit found the member fenced: its partitions are lost, not revoked
				}
			}
			c.revoke(ctx)
		case consumerJoinPending:
			c.join = m.startJoin(nil)
		}
	}
}

// revoke runs WithOnRevoked while the member still owns its partitions, then gives them up.
func (c *Consumer) revoke(ctx context.Context) {
	c.mu.Lock()
	owned := c.parts.assigned()
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.parts.clear()
		c.mu.Unlock()
		c.member.revoked()
	}()
	if len(owned) > 0 || c.cfg.rebalanceProtocol == RebalanceEager {
		// Cooperative: only when some are revoked, as in a rebalance (and Kafka's cooperative consumer).
		c.callback(ctx, c.cfg.onRevoked, owned)
	}
}

func (c *Consumer) callback(ctx context.Context, f func(context.Context, []TopicPartition), tps []TopicPartition) {
	if f != nil {
		f(ctx, slices.Clone(tps))
	}
}

// Assign reads these partitions without group membership (Kafka's assign),
// replacing the earlier assignment; partitions kept keep their positions.
// A new partition starts at the group's committed offset with WithGroup,
// else at WithResetPosition. With WithGroup, commits are made from outside
// the group (the broker accepts them only while the group has no members).
// Not with WithTopics: the group assigns partitions then. Assign() with no
// partitions ends the assignment. With auto commit, commit the positions of
// partitions given up first: Assign makes no call to the broker.
func (c *Consumer) Assign(partitions ...TopicPartition) error {
	if c.subscribed {
		return errors.New("brook: Assign cannot be used with WithTopics or WithTopicPattern: the group assigns the partitions")
	}
	for _, tp := range partitions {
		if !validName(tp.Topic) || tp.Partition < 0 {
			return fmt.Errorf("brook: Assign: invalid partition %q/%d", tp.Topic, tp.Partition)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClientClosed
	}
	c.parts.assign(partitions)
	c.manual = len(partitions) > 0
	return nil
}

// Assignment is the partitions this consumer reads now, sorted: empty before
// the first join and, for an eager member (RebalanceEager), during a
// rebalance; a cooperative member keeps reading its partitions meanwhile.
func (c *Consumer) Assignment() []TopicPartition {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.parts.assigned()
}

// UnknownTopics lists the subscribed topics (WithTopics) that the broker did
// not know when the member last joined its group, sorted; nil when every one
// exists, before the first join, and for a consumer without a group. The
// consumer logs a warning once per missing topic and keeps polling: once the
// topic is created the group rebalances and the member gets its partitions
// (WithOnAssigned), as Kafka's consumer waits for a topic to appear.
func (c *Consumer) UnknownTopics() []string {
	return c.unknown.list()
}

// GroupMetadata is the membership held now (WithTopics); MemberID "" and
// Generation -1 when none.
func (c *Consumer) GroupMetadata() ConsumerGroupMetadata {
	out := ConsumerGroupMetadata{Group: c.cfg.group, Generation: -1}
	if c.member != nil {
		out.MemberID, out.Generation = c.member.metadata()
	}
	return out
}

func consumerNotAssigned(tp TopicPartition) error {
	return fmt.Errorf("brook: %s/%d is not assigned to this consumer", tp.Topic, tp.Partition)
}

// withAssigned runs f on the states of tps (every assigned partition when
// none is given) under the lock, after checking that each is assigned.
func (c *Consumer) withAssigned(tps []TopicPartition, f func(st *consumerPartition)) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClientClosed
	}
	if len(tps) == 0 {
		tps = c.parts.assigned()
	}
	states := make([]*consumerPartition, len(tps))
	for i, tp := range tps {
		if states[i] = c.parts.get(tp); states[i] == nil {
			return consumerNotAssigned(tp)
		}
	}
	for _, st := range states {
		f(st)
	}
	return nil
}

// Seek makes the next Poll read this assigned partition from offset.
func (c *Consumer) Seek(tp TopicPartition, offset int64) error {
	if offset < 0 {
		return fmt.Errorf("brook: Seek(%s/%d, %d): the offset must not be negative", tp.Topic, tp.Partition, offset)
	}
	return c.withAssigned([]TopicPartition{tp}, func(st *consumerPartition) { c.parts.seek(st, offset) })
}

// SeekTo moves these assigned partitions (every assigned one when none is
// given) to a position: AtOffset at once; Earliest, Latest and AtTime are
// looked up at the next Poll or Position.
func (c *Consumer) SeekTo(pos Position, partitions ...TopicPartition) error {
	switch {
	case pos.IsZero():
		return errors.New("brook: SeekTo: the position is unset")
	case pos.kind == positionOffset && pos.offset < 0:
		return fmt.Errorf("brook: SeekTo(%v): the offset must not be negative", pos)
	}
	return c.withAssigned(partitions, func(st *consumerPartition) {
		if pos.kind == positionOffset {
			c.parts.seek(st, pos.offset)
		} else {
			c.parts.requestReset(st, pos)
		}
	})
}

// SeekToBeginning moves these assigned partitions (every assigned one when
// none is given) to their earliest offset, looked up at the next Poll.
func (c *Consumer) SeekToBeginning(partitions ...TopicPartition) error {
	return c.SeekTo(Earliest, partitions...)
}

// SeekToEnd moves these assigned partitions (every assigned one when none is
// given) to their end, looked up at the next Poll: only records produced
// later are read.
func (c *Consumer) SeekToEnd(partitions ...TopicPartition) error {
	return c.SeekTo(Latest, partitions...)
}

// Pause stops fetching these assigned partitions (every assigned one when
// none is given) until Resume; their positions stay. A rebalance ends the
// pause of the partitions it moves.
func (c *Consumer) Pause(partitions ...TopicPartition) error {
	return c.withAssigned(partitions, func(st *consumerPartition) { st.paused = true })
}

// Resume fetches paused partitions again (every assigned one when none is given).
func (c *Consumer) Resume(partitions ...TopicPartition) error {
	return c.withAssigned(partitions, func(st *consumerPartition) { st.paused = false })
}

// Paused is the assigned partitions that are paused, sorted.
func (c *Consumer) Paused() []TopicPartition {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []TopicPartition
	for _, tp := range c.parts.order {
		if c.parts.byTP[tp].paused {
			out = append(out, tp)
		}
	}
	return out
}

// Position is the next offset Poll reads from this assigned partition,
// looked up (committed offset, or WithResetPosition, or a pending SeekTo)
// when not known yet.
func (c *Consumer) Position(ctx context.Context, tp TopicPartition) (int64, error) {
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return 0, ErrClientClosed
		}
		st := c.parts.get(tp)
		if st == nil {
			c.mu.Unlock()
			return 0, consumerNotAssigned(tp)
		}
		if st.known {
			defer c.mu.Unlock()
			return st.position, nil
		}
		ref := consumerPartitionRef{tp: tp, state: st, epoch: st.epoch, reset: st.reset}
		c.mu.Unlock()
		if err := c.retrying(ctx, func(ctx context.Context) error {
			return c.resolvePositions(ctx, []consumerPartitionRef{ref})
		}); err != nil {
			return 0, err
		}
	}
}

// Lag is how far this assigned partition's position is behind its end, as
// the last fetch saw it; ok is false before a fetch of it answered.
func (c *Consumer) Lag(tp TopicPartition) (lag int64, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.parts.get(tp)
	if st == nil || !st.known || !st.endKnown {
		return 0, false
	}
	return max(0, st.end-st.position), true
}

// ListOffsets resolves a position (Earliest: the log-start offset; Latest:
// the end offset; AtTime: the first offset whose record is at or after the
// time, the end offset when none is) for each partition, assigned or not.
func (c *Consumer) ListOffsets(ctx context.Context, pos Position, partitions ...TopicPartition) (map[TopicPartition]int64, error) {
	if pos.IsZero() {
		return nil, errors.New("brook: ListOffsets: the position is unset")
	}
	if c.isClosed() {
		return nil, ErrClientClosed
	}
	if len(partitions) == 0 {
		return map[TopicPartition]int64{}, nil
	}
	var out map[TopicPartition]int64
	err := c.retrying(ctx, func(ctx context.Context) (err error) {
		out, err = c.listOffsetsOnce(ctx, pos, partitions)
		return err
	})
	return out, err
}

// Close commits the positions (with auto commit), runs WithOnRevoked (or
// WithOnLost when the partitions were lost), leaves the group so that its
// partitions go to the other members at once (a static member, see
// WithGroupInstanceID, stays until its session times out), stops every goroutine the
// consumer started and closes its connection (not one given WithConn). A
// Poll blocked in another goroutine returns ErrClientClosed. ctx bounds the
// commit and the leave; Close returns the commit's error, if any, after
// closing everything anyway. Calling Close again does nothing. Do not call
// it from a rebalance callback.
func (c *Consumer) Close(ctx context.Context) error {
	c.mu.Lock()
	if c.closeStarted {
		c.mu.Unlock()
		select {
		case <-c.closeDone:
		case <-ctx.Done():
		}
		return nil
	}
	c.closeStarted = true
	c.mu.Unlock()
	defer close(c.closeDone)
	c.startClosing()

	var errs []error
	acquired := false
	select {
	case c.pollSem <- struct{}{}: // no Poll running: taken even when ctx has ended already
		acquired = true
	default:
		select {
		case c.pollSem <- struct{}{}:
			acquired = true
		case <-ctx.Done():
			errs = append(errs, fmt.Errorf("brook: Close: a Poll did not return: %w", ctx.Err()))
		}
	}
	if acquired {
		errs = append(errs, c.closeGracefully(ctx))
	}
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	if c.member != nil {
		c.member.close(ctx)
	}
	c.endLifetime()
	c.goroutines.Wait()
	c.runAsyncCallbacks()
	if c.owned {
		if err := c.conn.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	if acquired {
		<-c.pollSem
	}
	return errors.Join(errs...)
}

// closeGracefully is Close's part on the polling goroutine's side: async
// commits, the final commit, the rebalance callback.
func (c *Consumer) closeGracefully(ctx context.Context) error {
	c.awaitAsyncCommits(ctx)
	c.runAsyncCallbacks()
	c.mu.Lock()
	manual := c.manual
	c.mu.Unlock()
	var err error
	switch {
	case c.subscribed && c.member.pending() == consumerLostPending:
		c.mu.Lock()
		gone := c.parts.clear()
		c.mu.Unlock()
		c.member.acknowledgeLost()
		if len(gone) > 0 {
			c.callback(ctx, c.cfg.onLost, gone)
		}
	case c.subscribed:
		if _, _, ok := c.member.current(); ok && (c.join == nil || c.join.cooperative) {
			if c.cfg.autoCommitOn() {
				err = c.commitAtClose(ctx)
			}
			c.revoke(ctx)
		}
	case manual && c.cfg.autoCommitOn():
		err = c.commitAtClose(ctx)
	}
	return err
}

func (c *Consumer) commitAtClose(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.requestTimeout)
	defer cancel()
	c.mu.Lock()
	offsets := c.parts.knownPositions()
	c.mu.Unlock()
	if err := c.commit(ctx, withoutMetadata(offsets), true); err != nil {
		return fmt.Errorf("brook: commit at Close: %w", err)
	}
	return nil
}

// retrying runs f until it succeeds, fails other than by the broker being
// unreachable, or ctx ends; with backoff. Close ends it with ErrClientClosed.
func (c *Consumer) retrying(ctx context.Context, f func(ctx context.Context) error) error {
	ctx, stop := c.scoped(ctx, c.lifetime)
	defer stop()
	bo := newBackoff(c.cfg.backoffMin, c.cfg.backoffMax)
	var last error // the last failure that says more than "the context ended"
	for {
		err := f(ctx)
		if err == nil {
			return nil
		}
		if saysMoreThanCtx(err) {
			last = err
		}
		if ctx.Err() != nil {
			// The attempt the context cut (waiting for a reconnect) says only
			// that; the one before it says why the broker was not answering.
			return consumerCtxErr(ctx, last)
		}
		if !consumerUnreachable(err) {
			return err
		}
		c.conn.ResetConnectBackoff()
		if bo.wait(ctx) != nil {
			return consumerCtxErr(ctx, last)
		}
	}
}

// consumerUnreachable: the broker could not be reached or did not answer in time.
func consumerUnreachable(err error) bool {
	var be *BrokerError
	if errors.As(err, &be) {
		return be.GRPCCode == codes.Unavailable || be.GRPCCode == codes.DeadlineExceeded
	}
	return errors.Is(err, context.DeadlineExceeded)
}

// consumerPollRetriable: Poll tries again later (a rejoin, for a member that was removed or fenced).
func consumerPollRetriable(err error) bool {
	return consumerUnreachable(err) || isRetriable(err) ||
		errors.Is(err, ErrUnknownMember) || errors.Is(err, ErrIllegalGeneration)
}

// consumerCtxErr is the error of a call whose ctx ended: ErrClientClosed when
// Close ended it, else ctx's error, wrapping the last failure before it.
func consumerCtxErr(ctx context.Context, last error) error {
	if errors.Is(context.Cause(ctx), ErrClientClosed) {
		return ErrClientClosed
	}
	return ctxError(ctx.Err(), last)
}
