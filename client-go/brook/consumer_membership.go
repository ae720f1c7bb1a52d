package brook

import (
	"context"
	"errors"
	"sync"
	"time"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

const (
	// consumerJoinGrace is how long a JoinGroup may take beyond the rebalance timeout.
	consumerJoinGrace = 15 * time.Second
	// consumerDefaultHeartbeat is the heartbeat interval when the broker names none.
	consumerDefaultHeartbeat = 3 * time.Second
	// consumerLeaveTimeout bounds a LeaveGroup: the session timeout removes the member anyway.
	consumerLeaveTimeout = 5 * time.Second
)

// consumerPending is what the polling goroutine must do before it fetches.
type consumerPending int

const (
	consumerNothingPending consumerPending = iota
	// consumerJoinPending: the member holds no assignment; join.
	consumerJoinPending
	// consumerRevokePending: a heartbeat answered rejoin; commit, revoke, join again.
	consumerRevokePending
	// consumerLostPending: removed or fenced; the partitions are gone without a revoke.
	consumerLostPending
)

// consumerJoin is one JoinGroup, run on its own goroutine so that a Poll whose
// context ends does not cancel a rebalance under way: the next Poll takes the answer.
type consumerJoin struct {
	done     chan struct{}
	assigned []TopicPartition
	err      error
	// cooperative: a rejoin that keeps the partitions; Poll fetches on meanwhile.
	cooperative bool
}

// consumerMembership is the consumer's membership of its group, shared by the
// polling goroutine (which joins, and acts on what happened), the join
// goroutine and the heartbeat goroutine (which keeps the session alive,
// notices a rebalance or a removal, and leaves the group when the application
// stops calling Poll). mu guards every field below it.
type consumerMembership struct {
	c *Consumer

	mu            sync.Mutex
	memberID      string
	generation    int32
	joined        bool // holds the assignment of generation
	rejoin        bool // a heartbeat answered rejoin=true
	lost          bool // removed, fenced, or left for not polling
	closed        bool
	heartbeating  bool
	interval      time.Duration
	nextHeartbeat time.Time
	inPoll        bool
	lastPoll      time.Time
	// changed is closed (and replaced) when a rebalance or a loss is noticed.
	changed chan struct{}
	// wake wakes the heartbeat goroutine.
	wake chan struct{}
	// matched: the topics the subscription resolved to at the last join
	// (JoinGroupResponse.topics), which Subscription shows for WithTopicPattern.
	matched []string
	// joining: a cooperative rejoin is under way; its pending JoinGroup keeps
	// the session, so no heartbeat goes meanwhile.
	joining bool
	// replaced: a newer consumer with this instance id took the member's place (consumer_static.go).
	replaced error
}

func consumerNewMembership(c *Consumer) *consumerMembership {
	return &consumerMembership{
		c:        c,
		interval: consumerDefaultHeartbeat,
		lastPoll: time.Now(),
		changed:  make(chan struct{}),
		wake:     make(chan struct{}, 1),
	}
}

// broadcastLocked wakes a Poll waiting in awaitChange and the heartbeat goroutine.
func (m *consumerMembership) broadcastLocked() {
	close(m.changed)
	m.changed = make(chan struct{})
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

func (m *consumerMembership) pending() consumerPending {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.lost:
		return consumerLostPending
	case !m.joined:
		return consumerJoinPending
	case m.rejoin:
		return consumerRevokePending
	}
	return consumerNothingPending
}

// acknowledgeLost: the polling goroutine gave up the lost partitions; the next step is a join.
func (m *consumerMembership) acknowledgeLost() {
	m.mu.Lock()
	m.lost, m.joined = m.replaced != nil, false // fenced for good: no join follows
	m.mu.Unlock()
}

// revoked: the polling goroutine gave up its partitions; the next step is a join.
func (m *consumerMembership) revoked() {
	m.mu.Lock()
	m.joined = false
	m.mu.Unlock()
}

// current is the membership a commit is made in; ok is false while the member
// holds no current assignment.
func (m *consumerMembership) current() (memberID string, generation int32, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.joined && !m.lost && !m.closed {
		return m.memberID, m.generation, true
	}
	return "", 0, false
}

func (m *consumerMembership) isCurrentLocked(memberID string, generation int32) bool {
	return m.joined && !m.lost && !m.closed && memberID == m.memberID && generation == m.generation
}

func (m *consumerMembership) pollStarted() {
	m.mu.Lock()
	m.inPoll = true
	m.mu.Unlock()
}

func (m *consumerMembership) pollEnded() {
	m.mu.Lock()
	m.inPoll = false
	m.lastPoll = time.Now()
	m.mu.Unlock()
}

// awaitChange waits up to d for the heartbeat goroutine to notice a rebalance or a loss.
func (m *consumerMembership) awaitChange(ctx context.Context, d time.Duration) {
	m.mu.Lock()
	if !m.joined || m.rejoin || m.lost || m.closed {
		m.mu.Unlock()
		return
	}
	changed := m.changed
	m.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-changed:
	case <-t.C:
	case <-ctx.Done():
	}
}

// fencedOrRemoved: a call of the membership (memberID, generation) failed
// with err. When the broker says the member is unknown (removed, or the
// broker restarted) or fenced, and the answer concerns the membership held
// now, it is lost. Answers whether err was one of those.
func (m *consumerMembership) fencedOrRemoved(err error, memberID string, generation int32) bool {
	if errors.Is(err, ErrMemberReplaced) {
		m.mu.Lock()
		if m.isCurrentLocked(memberID, generation) {
			m.replacedLocked(err)
			m.broadcastLocked()
		}
		m.mu.Unlock()
		return false // not a membership to join again: returned as it is
	}
	removed := errors.Is(err, ErrUnknownMember) || errors.Is(err, ErrUnknownGroup)
	if !removed && !errors.Is(err, ErrIllegalGeneration) {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.joining {
		return true // the rejoin under way tells whether the member is still in the group
	}
	if m.isCurrentLocked(memberID, generation) {
		m.lost = true
		if removed {
			m.memberID = ""
		}
		m.broadcastLocked()
	}
	return true
}

// startJoin sends a JoinGroup on its own goroutine. owned: a cooperative
// rejoin's partitions, which the member keeps meanwhile (nil: eager).
func (m *consumerMembership) startJoin(owned []TopicPartition) *consumerJoin {
	j := &consumerJoin{done: make(chan struct{}), cooperative: owned != nil}
	m.mu.Lock()
	id := m.memberID
	m.rejoin = false
	m.joining = j.cooperative
	m.mu.Unlock()
	if !m.c.spawn(func() { m.runJoin(j, id, owned) }) {
		j.err = ErrClientClosed
		close(j.done)
	}
	return j
}

func (m *consumerMembership) runJoin(j *consumerJoin, memberID string, owned []TopicPartition) {
	defer close(j.done)
	if j.cooperative {
		defer func() {
			m.mu.Lock()
			m.joining = false
			m.broadcastLocked() // a Poll waiting with nothing to fetch takes the answer now
			m.mu.Unlock()
		}()
	}
	cfg := &m.c.cfg
	ctx, cancel := context.WithTimeout(m.c.lifetime, cfg.rebalanceTimeout+consumerJoinGrace)
	resp, err := m.c.groups.JoinGroup(ctx, &brookv1.JoinGroupRequest{
		Group:              cfg.group,
		MemberId:           memberID,
		ClientId:           cfg.conn.clientID,
		Topics:             cfg.topics,
		TopicPattern:       cfg.topicPattern,
		SessionTimeoutMs:   int32(cfg.sessionTimeout / time.Millisecond),
		RebalanceTimeoutMs: int32(cfg.rebalanceTimeout / time.Millisecond),
		Cooperative:        cfg.rebalanceProtocol == RebalanceCooperative,
		Owned:              consumerByTopic(owned),
		InstanceId:         cfg.instanceID,
	})
	cancel()
	if err != nil {
		err = callError(err)
		if m.c.lifetime.Err() != nil {
			err = ErrClientClosed
		}
		if errors.Is(err, ErrUnknownMember) {
			m.mu.Lock()
			if m.memberID == memberID {
				m.memberID = "" // removed meanwhile (or the broker restarted): join as a new member
				// A cooperative member still holds its partitions: they are lost (WithOnLost, no
				// commit as member "", also when Close comes before Poll takes this answer).
				m.lost = m.lost || j.cooperative
			}
			m.mu.Unlock()
		}
		if errors.Is(err, ErrMemberReplaced) {
			m.mu.Lock()
			m.replacedLocked(err)
			m.mu.Unlock()
		}
		j.err = err
		return
	}
	for _, tps := range resp.GetAssignment() {
		for _, p := range tps.GetPartitions() {
			j.assigned = append(j.assigned, TopicPartition{Topic: tps.GetTopic(), Partition: p})
		}
	}
	interval := time.Duration(resp.GetHeartbeatIntervalMs()) * time.Millisecond
	if interval <= 0 {
		interval = consumerDefaultHeartbeat
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		// Close ran while the join was under way and could not leave under this
		// id, which it did not know: leave now, so the group need not wait for it.
		m.leave(context.Background(), resp.GetMemberId())
		j.err = ErrClientClosed
		return
	}
	now := time.Now()
	m.memberID, m.generation = resp.GetMemberId(), resp.GetGeneration()
	m.joined, m.lost, m.rejoin = true, false, false
	m.matched = resp.GetTopics()
	// The first heartbeat goes at once: the broker holds it until the group changes.
	m.interval, m.nextHeartbeat, m.lastPoll = interval, now, now
	startHeartbeats := !m.heartbeating
	m.heartbeating = true
	m.broadcastLocked()
	m.mu.Unlock()
	m.c.unknown.update(m.c.log, cfg.group, resp.GetUnknownTopics())
	if startHeartbeats {
		m.c.spawn(m.heartbeatLoop)
	}
}

// close leaves the group (when a member) and stops the heartbeat goroutine.
func (m *consumerMembership) close(ctx context.Context) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	leaving := m.memberID
	m.joined = false
	m.broadcastLocked()
	m.mu.Unlock()
	if leaving != "" {
		m.leave(ctx, leaving)
	}
}

// metadata is the membership held now.
func (m *consumerMembership) metadata() (memberID string, generation int32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.joined && !m.lost && !m.closed {
		return m.memberID, m.generation
	}
	return "", -1
}

// heartbeatLoop keeps the session alive from the first join until Close.
func (m *consumerMembership) heartbeatLoop() {
	for {
		m.mu.Lock()
		if m.closed || m.c.lifetime.Err() != nil {
			m.mu.Unlock()
			return
		}
		wait := time.Duration(-1) // until woken
		var leaveAs string
		beat := false
		var maxWait time.Duration
		member, generation := m.memberID, m.generation
		if m.joined && !m.lost && !m.joining {
			now := time.Now()
			pollDeadline := m.lastPoll.Add(m.c.cfg.rebalanceTimeout)
			switch {
			case !m.inPoll && !now.Before(pollDeadline):
				// The application stopped calling Poll: give the partitions to the
				// others (Kafka's max.poll.interval.ms). The next Poll joins again.
				leaveAs = m.memberID
				m.memberID, m.lost = "", true
				m.broadcastLocked()
			case !now.Before(m.nextHeartbeat):
				beat = true
				m.nextHeartbeat = now.Add(m.interval)
				// The broker holds the heartbeat until a rebalance starts or this
				// long passed; the next one then goes at once. Not past the poll
				// deadline, which this goroutine must check in time.
				maxWait = m.interval
				if !m.inPoll {
					maxWait = max(time.Millisecond, min(maxWait, pollDeadline.Sub(now)+time.Millisecond))
				}
			default:
				wait = m.nextHeartbeat.Sub(now)
				if !m.inPoll {
					wait = min(wait, pollDeadline.Sub(now))
				}
			}
		}
		m.mu.Unlock()
		switch {
		case leaveAs != "":
			m.c.log.Warn("brook: Poll was not called within the rebalance timeout: left the group (a static member stops"+
				" heartbeating); the next Poll joins again", "group", m.c.cfg.group, "rebalance_timeout", m.c.cfg.rebalanceTimeout)
			m.leave(m.c.lifetime, leaveAs)
		case beat:
			m.heartbeat(member, generation, maxWait)
		default:
			m.sleep(wait)
		}
	}
}

func (m *consumerMembership) sleep(d time.Duration) {
	if d < 0 {
		select {
		case <-m.wake:
		case <-m.c.lifetime.Done():
		}
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-m.wake:
	case <-m.c.lifetime.Done():
	}
}

func (m *consumerMembership) heartbeat(memberID string, generation int32, maxWait time.Duration) {
	m.mu.Lock()
	timeout := maxWait + max(m.interval, 5*time.Second)
	m.mu.Unlock()
	ctx, cancel := context.WithTimeout(m.c.lifetime, timeout)
	defer cancel()
	resp, err := m.c.groups.Heartbeat(ctx, &brookv1.HeartbeatRequest{
		Group: m.c.cfg.group, MemberId: memberID, Generation: generation,
		MaxWaitMs: int32(maxWait / time.Millisecond),
	})
	if err != nil {
		err = callError(err)
		if !m.fencedOrRemoved(err, memberID, generation) && m.c.lifetime.Err() == nil {
			// Unreachable or restarting broker: try again at the next interval. A
			// session that ran out meanwhile shows up as UNKNOWN_MEMBER_ID then.
			if consumerUnreachable(err) {
				m.c.conn.ResetConnectBackoff()
			}
			m.c.log.Debug("brook: heartbeat failed", "group", m.c.cfg.group, "error", err)
		}
		return
	}
	if resp.GetRejoin() {
		m.mu.Lock()
		if m.isCurrentLocked(memberID, generation) && !m.rejoin {
			m.rejoin = true
			m.broadcastLocked()
		}
		m.mu.Unlock()
	}
}

func (m *consumerMembership) leave(ctx context.Context, memberID string) {
	if !m.leaves() {
		return // a static member stays until its session times out: a restart takes its place without a rebalance
	}
	ctx, cancel := context.WithTimeout(ctx, min(m.c.cfg.requestTimeout, consumerLeaveTimeout))
	defer cancel()
	_, err := m.c.groups.LeaveGroup(ctx, &brookv1.LeaveGroupRequest{Group: m.c.cfg.group, MemberId: memberID})
	if err != nil {
		// Already removed, or the broker is gone: the session timeout removes the member anyway.
		m.c.log.Debug("brook: LeaveGroup failed", "group", m.c.cfg.group, "error", callError(err))
	}
}
