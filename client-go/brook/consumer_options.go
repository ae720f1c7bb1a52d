package brook

import (
	"context"
	"time"
)

// consumerOption sets one of NewConsumer's own options.
type consumerOption func(*consumerConfig)

func (o consumerOption) applyConsumer(c *consumerConfig) { o(c) }

// WithSessionTimeout is how long the group keeps a member whose heartbeats
// stopped (Kafka's session.timeout.ms). Default 45s; the broker accepts
// group.min.session.timeout.ms..group.max.session.timeout.ms (6s..30m unless
// configured otherwise). Heartbeats go every interval the broker answers: a
// third of this, at most its group.heartbeat.interval.ms (3s by default). The
// broker holds each heartbeat until the group changes, so a rebalance is heard
// of at once.
func WithSessionTimeout(d time.Duration) ConsumerOption {
	return consumerOption(func(c *consumerConfig) { c.sessionTimeout = d })
}

// WithRebalanceTimeout is the longest a member may take to rejoin once a
// rebalance started, and the longest the application may go without calling
// Poll: past it the consumer leaves the group, so that the others get its
// partitions, and its next Poll joins again (Kafka's max.poll.interval.ms).
// Default 5m.
func WithRebalanceTimeout(d time.Duration) ConsumerOption {
	return consumerOption(func(c *consumerConfig) { c.rebalanceTimeout = d })
}

// WithResetPosition is where a partition starts when the group has no
// committed offset for it (or without a group), and where a position that is
// out of range (retention deleted it) moves to: Earliest or Latest (Kafka's
// auto.offset.reset). Default Latest.
func WithResetPosition(p Position) ConsumerOption {
	return consumerOption(func(c *consumerConfig) { c.reset = p })
}

// WithAutoCommit turns auto commit on or off (Kafka's enable.auto.commit).
// With it, Poll commits the positions every WithAutoCommitInterval (what the
// earlier Polls returned, so delivery is at least once), and they are
// committed before partitions are revoked and on Close. Default: on with
// WithGroup, off without one (on without a group is invalid).
func WithAutoCommit(enabled bool) ConsumerOption {
	return consumerOption(func(c *consumerConfig) { c.autoCommit = &enabled })
}

// WithAutoCommitInterval is how often Poll commits with auto commit. Default 5s.
func WithAutoCommitInterval(d time.Duration) ConsumerOption {
	return consumerOption(func(c *consumerConfig) { c.autoCommitInterval = d })
}

// WithMaxPollRecords is the most records one Poll returns (1..100000). Default 500.
func WithMaxPollRecords(n int) ConsumerOption {
	return consumerOption(func(c *consumerConfig) { c.maxPollRecords = n })
}

// WithFetchMaxBytes is about the most bytes of records one fetch returns (at
// least one record comes back even when it alone is larger). Default 1 MiB,
// at most 32 MiB.
func WithFetchMaxBytes(n int) ConsumerOption {
	return consumerOption(func(c *consumerConfig) { c.fetchMaxBytes = n })
}

// WithFetchMaxWait is the longest one fetch waits at the broker for a record.
// A rebalance is noticed between fetches, so it also bounds how late the
// consumer rejoins. Default 500ms; below WithRequestTimeout.
func WithFetchMaxWait(d time.Duration) ConsumerOption {
	return consumerOption(func(c *consumerConfig) { c.fetchMaxWait = d })
}

// WithOnAssigned is called inside Poll, on the polling goroutine, with the
// partitions the group gave this member, before their positions are looked
// up: a Seek there decides where they start (Kafka's onPartitionsAssigned).
// The context is Poll's.
func WithOnAssigned(f func(ctx context.Context, partitions []TopicPartition)) ConsumerOption {
	return consumerOption(func(c *consumerConfig) { c.onAssigned = f })
}

// WithOnRevoked is called inside Poll (and Close), on the polling goroutine,
// before the member gives up its partitions for a rebalance: it still owns
// them in the current generation, so a CommitSync there is stored, and no
// other member reads them before it returns (Kafka's onPartitionsRevoked).
// With auto commit the positions were committed just before.
func WithOnRevoked(f func(ctx context.Context, partitions []TopicPartition)) ConsumerOption {
	return consumerOption(func(c *consumerConfig) { c.onRevoked = f })
}

// WithOnLost is called inside Poll (and Close) when the member lost its
// partitions without a revoke: it was removed from the group (its session ran
// out, the broker restarted) or fenced, so they may be another member's
// already and a commit would be refused (Kafka's onPartitionsLost). The next
// Poll joins again.
func WithOnLost(f func(ctx context.Context, partitions []TopicPartition)) ConsumerOption {
	return consumerOption(func(c *consumerConfig) { c.onLost = f })
}

// WithTopicPattern subscribes to every topic whose whole name matches the
// regular expression (Kafka's subscribe(Pattern)), instead of WithTopics; it
// needs WithGroup. The broker matches it, in Java's regular-expression syntax
// (close to Go's for the usual patterns), among the existing topics this
// consumer may consume, at every rebalance, and rebalances the group when a
// matching topic is created or deleted: the members get its partitions, or
// give them up, without a restart. Subscription lists what it matched. A
// pattern that does not compile (or is longer than 1000 characters) fails
// Poll with ErrInvalidRequest, saying what is wrong.
func WithTopicPattern(pattern string) ConsumerOption {
	return consumerOption(func(c *consumerConfig) { c.topicPattern = pattern })
}

// WithRebalanceProtocol chooses how the member gives up partitions in a
// rebalance (Kafka's RebalanceProtocol). RebalanceCooperative (Kafka's
// CooperativeStickyAssignor): the member keeps its partitions while it
// rejoins, Poll keeps returning their records, WithOnRevoked hears only of
// the partitions that move to another member (committed first with auto
// commit; only when some do) and WithOnAssigned only of those added. Default
// RebalanceEager.
func WithRebalanceProtocol(p RebalanceProtocol) ConsumerOption {
	return consumerOption(func(c *consumerConfig) { c.rebalanceProtocol = p })
}

// WithGroupInstanceID makes the consumer a static member of its group
// (Kafka's group.instance.id; the group-name rule). A consumer that starts
// with the instance id of a member in the group takes its place and its
// partitions, without a rebalance while the group is stable: a restart within
// WithSessionTimeout moves no partition. Close does not leave the group (the
// member goes when its session times out), and a second live consumer with the
// same id fences the first, whose Poll then returns an error matching
// ErrMemberReplaced (errors.Is), for good: close it. Default: none (a dynamic
// member).
func WithGroupInstanceID(id string) ConsumerOption {
	return consumerOption(func(c *consumerConfig) { c.instanceID = id })
}
