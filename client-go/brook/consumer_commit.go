package brook

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

// CommitSync commits the position of every assigned partition (the next
// offset to read, Kafka's semantics), retrying while the broker is
// unreachable until ctx ends. A member that is no longer in the group's
// current generation (removed, fenced, or rebalancing) gets an error
// matching ErrCommitFailed (and the broker's error, when it answered one);
// the next Poll joins again.
func (c *Consumer) CommitSync(ctx context.Context) error {
	if c.isClosed() {
		return ErrClientClosed
	}
	offsets, memberID, generation, err := c.positionsInMembership()
	if err != nil {
		return err
	}
	return c.commitAs(ctx, memberID, generation, withoutMetadata(offsets), true)
}

// positionsInMembership takes the positions together with the membership
// they belong to: a rebalance between the two would send positions of
// partitions given to another member under the new generation, which the
// broker accepts.
func (c *Consumer) positionsInMembership() (map[TopicPartition]int64, string, int32, error) {
	for attempt := 0; attempt < 10; attempt++ {
		memberID, generation, err := c.commitMembership()
		c.mu.Lock()
		offsets := c.parts.knownPositions()
		c.mu.Unlock()
		var config *ConfigError
		if len(offsets) == 0 && !errors.As(err, &config) {
			return offsets, memberID, generation, nil // nothing to commit: not an error, as before a join
		}
		if err != nil {
			return nil, "", 0, err
		}
		afterID, afterGeneration, err := c.commitMembership()
		if err != nil {
			return nil, "", 0, err
		}
		if afterID == memberID && afterGeneration == generation {
			return offsets, memberID, generation, nil
		}
	}
	return nil, "", 0, fmt.Errorf("%w: the group kept rebalancing while the positions were read", ErrCommitFailed)
}

// CommitOffsets commits these offsets, each the next offset to read of its
// partition, as CommitSync does.
func (c *Consumer) CommitOffsets(ctx context.Context, offsets map[TopicPartition]int64) error {
	if c.isClosed() {
		return ErrClientClosed
	}
	for tp, o := range offsets {
		if o < 0 {
			return fmt.Errorf("brook: CommitOffsets: offset %d of %s/%d is negative", o, tp.Topic, tp.Partition)
		}
	}
	return c.commit(ctx, withoutMetadata(offsets), true)
}

// CommitRecords commits, for each partition of these records, the offset
// after the highest one given, as CommitSync does.
func (c *Consumer) CommitRecords(ctx context.Context, records ...*Record) error {
	offsets := make(map[TopicPartition]int64)
	for _, r := range records {
		if r == nil {
			continue
		}
		tp := TopicPartition{Topic: r.Topic, Partition: r.Partition}
		if next, ok := offsets[tp]; !ok || r.Offset+1 > next {
			offsets[tp] = r.Offset + 1
		}
	}
	return c.CommitOffsets(ctx, offsets)
}

// CommitAsync sends a commit of these offsets (nil: every position) and
// returns at once; there is no retry. onDone (nil: a failure is logged) runs
// on the goroutine of a later Poll, CommitSync or Close, which waits for
// async commits still under way until its ctx ends; one still unanswered then
// gets an error matching ErrClientClosed (whether it was stored is unknown).
func (c *Consumer) CommitAsync(offsets map[TopicPartition]int64, onDone func(offsets map[TopicPartition]int64, err error)) {
	var done func(map[TopicPartition]OffsetAndMetadata, error)
	if onDone != nil {
		done = func(commits map[TopicPartition]OffsetAndMetadata, err error) { onDone(offsetsOnly(commits), err) }
	}
	c.commitAsync(withoutMetadata(offsets), done)
}

// commitAsync is CommitAsync with each offset's metadata (nil commits: every position, without).
func (c *Consumer) commitAsync(offsets map[TopicPartition]OffsetAndMetadata,
	onDone func(offsets map[TopicPartition]OffsetAndMetadata, err error)) {
	var memberID string
	var generation int32
	var err error
	if offsets == nil {
		var positions map[TopicPartition]int64
		positions, memberID, generation, err = c.positionsInMembership()
		offsets = withoutMetadata(positions)
	} else {
		offsets = maps.Clone(offsets)
		memberID, generation, err = c.commitMembership()
	}
	if c.isClosed() {
		if onDone != nil {
			onDone(offsets, ErrClientClosed)
		}
		return
	}
	c.asyncStarted()
	if err == nil && len(offsets) > 0 {
		started := c.spawn(func() {
			err := c.commitOnce(c.lifetime, memberID, generation, offsets)
			switch {
			case err == nil: // answered: stored, even when Close ends the lifetime meanwhile
			case c.lifetime.Err() != nil:
				err = fmt.Errorf("%w: Close ended the commit before the broker answered; whether it was stored is unknown",
					ErrClientClosed)
			default:
				err = c.commitFailed(err, memberID, generation)
			}
			c.asyncEnded(offsets, err, onDone)
		})
		if started {
			return
		}
		// Closed meanwhile: Close may have run the callbacks already, so run this one here.
		c.asyncEnded(offsets, ErrClientClosed, onDone)
		c.runAsyncCallbacks()
		return
	}
	c.asyncEnded(offsets, err, onDone)
}

func (c *Consumer) asyncStarted() {
	c.mu.Lock()
	if c.asyncInflight == 0 {
		c.asyncIdle = make(chan struct{})
	}
	c.asyncInflight++
	c.mu.Unlock()
}

// asyncEnded queues onDone for the polling goroutine.
func (c *Consumer) asyncEnded(offsets map[TopicPartition]OffsetAndMetadata, err error,
	onDone func(map[TopicPartition]OffsetAndMetadata, error)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asyncDone = append(c.asyncDone, func() {
		switch {
		case onDone != nil:
			onDone(offsets, err)
		case err != nil:
			c.log.Warn("brook: async commit failed", "group", c.cfg.group, "error", err)
		}
	})
	if c.asyncInflight--; c.asyncInflight == 0 {
		close(c.asyncIdle)
	}
}

// runAsyncCallbacks runs the callbacks of the async commits that have ended,
// in order, one goroutine at a time (none when called from one of them).
func (c *Consumer) runAsyncCallbacks() {
	if !c.callbacksMu.TryLock() {
		return
	}
	defer c.callbacksMu.Unlock()
	for {
		c.mu.Lock()
		done := c.asyncDone
		c.asyncDone = nil
		c.mu.Unlock()
		if len(done) == 0 {
			return
		}
		for _, f := range done {
			f()
		}
	}
}

// awaitAsyncCommits waits, until ctx ends, for the async commits under way.
func (c *Consumer) awaitAsyncCommits(ctx context.Context) {
	c.mu.Lock()
	n, idle := c.asyncInflight, c.asyncIdle
	c.mu.Unlock()
	if n == 0 {
		return
	}
	select {
	case <-idle:
	case <-ctx.Done():
	}
}

// commit stores offsets as this member (or from outside the group with
// Assign), retrying while the broker is unreachable when retry is set.
func (c *Consumer) commit(ctx context.Context, offsets map[TopicPartition]OffsetAndMetadata, retry bool) error {
	if c.cfg.group == "" {
		return &ConfigError{Client: "consumer", Problems: []string{"commits need WithGroup"}}
	}
	if len(offsets) == 0 {
		c.runAsyncCallbacks()
		return nil
	}
	memberID, generation, err := c.commitMembership()
	if err != nil {
		return err
	}
	return c.commitAs(ctx, memberID, generation, offsets, retry)
}

// commitAs commits offsets as this member and generation.
func (c *Consumer) commitAs(ctx context.Context, memberID string, generation int32,
	offsets map[TopicPartition]OffsetAndMetadata, retry bool) error {
	if len(offsets) == 0 {
		c.runAsyncCallbacks()
		return nil
	}
	var err error
	once := func(ctx context.Context) error { return c.commitOnce(ctx, memberID, generation, offsets) }
	if retry {
		err = c.retrying(ctx, once)
	} else {
		err = once(ctx)
	}
	if err != nil {
		return c.commitFailed(err, memberID, generation)
	}
	c.runAsyncCallbacks() // Kafka's order: earlier async commits are reported by the next sync one
	return nil
}

// commitMembership is the membership a commit is made in: the member's
// current one, or none (Assign: from outside the group).
func (c *Consumer) commitMembership() (memberID string, generation int32, err error) {
	if c.cfg.group == "" {
		return "", 0, &ConfigError{Client: "consumer", Problems: []string{"commits need WithGroup"}}
	}
	if !c.subscribed {
		return "", 0, nil
	}
	if err := c.member.replacedErr(); err != nil {
		return "", 0, err // fenced for good: no Poll joins again
	}
	memberID, generation, ok := c.member.current()
	if !ok {
		return "", 0, fmt.Errorf("%w: not a member of group %q at the moment (rebalancing, or removed); the next Poll joins again",
			ErrCommitFailed, c.cfg.group)
	}
	return memberID, generation, nil
}

// commitFailed turns a refusal because the member was removed or fenced into
// an error matching both ErrCommitFailed and the broker's error.
func (c *Consumer) commitFailed(err error, memberID string, generation int32) error {
	if c.subscribed && c.member.fencedOrRemoved(err, memberID, generation) {
		return fmt.Errorf("%w: %w; the partitions may belong to another member now, the next Poll joins again",
			ErrCommitFailed, err)
	}
	return err
}

// commitOnce is one CommitOffsets; a partition the broker refused fails it
// with that partition's error, naming every refused partition.
func (c *Consumer) commitOnce(ctx context.Context, memberID string, generation int32,
	offsets map[TopicPartition]OffsetAndMetadata) (err error) {
	defer func(start time.Time) { c.stats.committed(start, err) }(time.Now())
	req := &brookv1.CommitOffsetsRequest{Group: c.cfg.group, MemberId: memberID, Generation: generation}
	for _, tp := range slices.SortedFunc(maps.Keys(offsets), consumerCompareTP) {
		req.Offsets = append(req.Offsets, &brookv1.OffsetCommit{Topic: tp.Topic, Partition: tp.Partition,
			Offset: offsets[tp].Offset, Metadata: offsets[tp].Metadata})
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.requestTimeout)
	defer cancel()
	resp, err := c.groups.CommitOffsets(ctx, req)
	if err != nil {
		return callError(err)
	}
	var first *brookv1.CommitResult
	var refused []string
	for _, r := range resp.GetResults() {
		if r.GetErrorCode() != brookv1.ErrorCode_ERROR_CODE_UNSPECIFIED {
			if first == nil {
				first = r
			}
			refused = append(refused, fmt.Sprintf("%s/%d: %s", r.GetTopic(), r.GetPartition(), r.GetErrorMessage()))
		}
	}
	if first != nil {
		return partitionError(first.GetErrorCode(), "commit refused for "+strings.Join(refused, "; "),
			first.GetTopic(), first.GetPartition())
	}
	return nil
}

// Committed reads the group's committed offsets of these partitions (every
// partition the group committed when none is given); a partition without a
// commit is absent. Retries while the broker is unreachable until ctx ends.
func (c *Consumer) Committed(ctx context.Context, partitions ...TopicPartition) (map[TopicPartition]int64, error) {
	commits, err := c.CommittedWithMetadata(ctx, partitions...)
	if err != nil {
		return nil, err
	}
	return offsetsOnly(commits), nil
}

// CommittedWithMetadata is Committed with the metadata each commit carries.
func (c *Consumer) CommittedWithMetadata(ctx context.Context, partitions ...TopicPartition) (map[TopicPartition]OffsetAndMetadata, error) {
	if c.isClosed() {
		return nil, ErrClientClosed
	}
	if c.cfg.group == "" {
		return nil, &ConfigError{Client: "consumer", Problems: []string{"Committed needs WithGroup"}}
	}
	var out map[TopicPartition]OffsetAndMetadata
	err := c.retrying(ctx, func(ctx context.Context) (err error) {
		out, err = c.committedOnce(ctx, partitions)
		return err
	})
	return out, err
}

// committedOnce is one FetchCommittedOffsets.
func (c *Consumer) committedOnce(ctx context.Context, tps []TopicPartition) (map[TopicPartition]OffsetAndMetadata, error) {
	req := &brookv1.FetchCommittedOffsetsRequest{Group: c.cfg.group}
	for _, tp := range slices.SortedFunc(slices.Values(tps), consumerCompareTP) {
		if n := len(req.Partitions); n > 0 && req.Partitions[n-1].Topic == tp.Topic {
			req.Partitions[n-1].Partitions = append(req.Partitions[n-1].Partitions, tp.Partition)
		} else {
			req.Partitions = append(req.Partitions, &brookv1.TopicPartitions{Topic: tp.Topic, Partitions: []int32{tp.Partition}})
		}
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.requestTimeout)
	defer cancel()
	resp, err := c.groups.FetchCommittedOffsets(ctx, req)
	if err != nil {
		return nil, callError(err)
	}
	out := make(map[TopicPartition]OffsetAndMetadata)
	for _, co := range resp.GetOffsets() {
		tp := TopicPartition{Topic: co.GetTopic(), Partition: co.GetPartition()}
		if len(tps) > 0 && !slices.Contains(tps, tp) {
			continue
		}
		if err := partitionError(co.GetErrorCode(), co.GetErrorMessage(), tp.Topic, tp.Partition); err != nil {
			return nil, err
		}
		if co.Offset != nil {
			out[tp] = OffsetAndMetadata{Offset: co.GetOffset(), Metadata: co.GetMetadata()}
		}
	}
	return out, nil
}

// maybeAutoCommit commits the positions every WithAutoCommitInterval, inside Poll.
func (c *Consumer) maybeAutoCommit(ctx context.Context) {
	if !c.cfg.autoCommitOn() {
		return
	}
	now := time.Now()
	if now.Before(c.nextAutoCommit) {
		return
	}
	c.nextAutoCommit = now.Add(c.cfg.autoCommitInterval)
	c.autoCommitQuietly(ctx, false)
}

// autoCommitQuietly commits the positions within WithRequestTimeout; a
// failure is logged, not returned (the records are then read again later:
// at least once). retry: while the broker is unreachable, within that time.
func (c *Consumer) autoCommitQuietly(ctx context.Context, retry bool) {
	c.mu.Lock()
	offsets := c.parts.knownPositions()
	c.mu.Unlock()
	if len(offsets) == 0 {
		return
	}
	if c.subscribed {
		if _, _, ok := c.member.current(); !ok {
			return
		}
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.requestTimeout)
	defer cancel()
	if err := c.commit(ctx, withoutMetadata(offsets), retry); err != nil && ctx.Err() == nil {
		c.log.Warn("brook: auto commit failed", "group", c.cfg.group, "error", err)
	}
}
