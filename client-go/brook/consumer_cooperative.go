package brook

import (
	"context"
	"slices"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

// RebalanceProtocol is how a group member gives up partitions in a rebalance
// (WithRebalanceProtocol).
type RebalanceProtocol int

const (
	// RebalanceEager: every rebalance revokes all the member's partitions
	// before it rejoins, and Poll waits for the rebalance to complete.
	RebalanceEager RebalanceProtocol = iota
	// RebalanceCooperative: incremental (D64). The member keeps its partitions
	// while it rejoins and Poll keeps returning their records; only the
	// partitions that move to another member are revoked, then a second
	// rebalance, which the broker starts at once, hands them over. Members of
	// both kinds may share a group.
	RebalanceCooperative
)

// cooperativeAnswer takes a cooperative rejoin's answer on the polling
// goroutine: the partitions that moved away are committed (auto commit),
// given to WithOnRevoked and dropped, then WithOnAssigned hears of the added
// ones; when some moved away the member rejoins at once (the broker is already
// rebalancing to hand them over), as Kafka's cooperative protocol does.
func (c *Consumer) cooperativeAnswer(ctx context.Context, j *consumerJoin) error {
	m := c.member
	if m.pending() == consumerLostPending {
		// Removed (the join was answered UNKNOWN_MEMBER_ID), fenced (MEMBER_REPLACED), or the
		// membership the join made was lost since (left for not polling): the partitions are lost,
		// not revoked, and the answer is not applied. ensureMember runs WithOnLost, and a
		// replaced member's Poll fails as every later one does.
		return nil
	}
	if j.err != nil {
		m.requestRejoin() // not answered (broker unreachable, superseded): join again after the backoff
		return j.err
	}
	c.mu.Lock()
	before := c.parts.assigned()
	c.mu.Unlock()
	var revoked, added []TopicPartition
	for _, tp := range before {
		if !slices.Contains(j.assigned, tp) {
			revoked = append(revoked, tp)
		}
	}
	for _, tp := range j.assigned {
		if !slices.Contains(before, tp) {
			added = append(added, tp)
		}
	}
	if len(revoked) > 0 {
		if c.cfg.autoCommitOn() {
			c.commitQuietly(ctx, revoked)
		}
		c.callback(ctx, c.cfg.onRevoked, revoked) // still the owner: a CommitSync there is stored
	}
	c.mu.Lock()
	c.parts.assign(j.assigned) // kept partitions keep their positions
	c.mu.Unlock()
	c.stats.rebalances.Add(1)
	if len(revoked) > 0 {
		m.requestRejoin()
	}
	c.callback(ctx, c.cfg.onAssigned, added)
	return nil
}

// commitQuietly commits the positions of these partitions as auto commit
// does: a failure is logged, not returned.
func (c *Consumer) commitQuietly(ctx context.Context, tps []TopicPartition) {
	c.mu.Lock()
	offsets := c.parts.knownPositions()
	c.mu.Unlock()
	for tp := range offsets {
		if !slices.Contains(tps, tp) {
			delete(offsets, tp)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.requestTimeout)
	defer cancel()
	if err := c.commit(ctx, withoutMetadata(offsets), true); err != nil && ctx.Err() == nil {
		c.log.Warn("brook: commit of revoked partitions failed", "group", c.cfg.group, "error", err)
	}
}

// requestRejoin: join again at the next Poll step, keeping the partitions.
func (m *consumerMembership) requestRejoin() {
	m.mu.Lock()
	if m.joined && !m.lost {
		m.rejoin = true
		m.broadcastLocked()
	}
	m.mu.Unlock()
}

// consumerByTopic is partitions as JoinGroupRequest.owned carries them.
func consumerByTopic(tps []TopicPartition) []*brookv1.TopicPartitions {
	sorted := slices.Clone(tps)
	slices.SortFunc(sorted, consumerCompareTP)
	return groupSelectionOf(sorted)
}
