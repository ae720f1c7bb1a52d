package brook

import (
	"context"
	"time"

	"google.golang.org/protobuf/proto"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

// consumerIdleWait is the longest Poll waits between rounds when it has
// nothing to fetch and WithFetchMaxWait is 0.
const consumerIdleWait = 100 * time.Millisecond

// fetchOnce fetches the partitions with known positions once, waiting at the
// broker up to WithFetchMaxWait (bounded by ctx's deadline) for a record.
// Positions move only once the whole answer was understood: a partition's
// error that is not retriable fails the call and moves nothing, but for a
// partition found gone (its topic deleted): that one is left out of the
// fetches until it is assigned again or sought, and the others are read on
// (a cooperative member keeps its partitions while the group rebalances the
// deleted topic away). Only a fetch of nothing but gone partitions fails. A partition
// that was sought, revoked or reassigned meanwhile keeps its new state and
// its records are dropped, as are those of a partition paused meanwhile (its
// position stays: they are read again after Resume).
func (c *Consumer) fetchOnce(ctx context.Context) ([]*Record, error) {
	wait := c.cfg.fetchMaxWait
	if deadline, ok := ctx.Deadline(); ok {
		wait = max(0, min(wait, time.Until(deadline)))
	}
	c.mu.Lock()
	refs := c.parts.fetchOrder()
	gone := c.parts.goneErr()
	c.mu.Unlock()
	if len(refs) == 0 {
		if gone != nil {
			return nil, gone // all that is left is gone: a member's Poll rides it out, Assign's returns it
		}
		c.idle(ctx, wait)
		return nil, nil
	}
	req := &brookv1.FetchRequest{
		MaxRecords: int32(c.cfg.maxPollRecords),
		MaxBytes:   int32(c.cfg.fetchMaxBytes),
		MaxWaitMs:  int32(wait / time.Millisecond),
	}
	for _, r := range refs {
		req.Partitions = append(req.Partitions, &brookv1.FetchPartition{
			Topic: r.tp.Topic, Partition: r.tp.Partition, Offset: r.position,
		})
	}
	callCtx, cancel := context.WithTimeout(ctx, wait+c.cfg.requestTimeout)
	resp, err := c.fetches.Fetch(callCtx, req)
	cancel()
	if err != nil {
		return nil, callError(err)
	}
	c.stats.fetches.Add(1)
	answers := resp.GetPartitions()
	if len(answers) > len(refs) {
		answers = answers[:len(refs)]
	}
	var retriable, firstGone error
	goneErrs := make(map[int]error)
	for i, pr := range answers {
		code := pr.GetErrorCode()
		if code == brookv1.ErrorCode_ERROR_CODE_UNSPECIFIED || code == brookv1.ErrorCode_ERROR_CODE_OFFSET_OUT_OF_RANGE {
			continue
		}
		perr := partitionError(code, pr.GetErrorMessage(), refs[i].tp.Topic, refs[i].tp.Partition)
		if consumerTopicGone(perr) {
			// Per partition, as Kafka's fetcher: the others are read on.
			goneErrs[i] = perr
			if firstGone == nil {
				firstGone = perr
			}
			continue
		}
		if !isRetriable(perr) {
			return nil, perr
		}
		if retriable == nil {
			retriable = perr
		}
	}
	var out []*Record
	var fetchedBytes int
	c.mu.Lock()
	c.markGoneLocked(refs, goneErrs)
	if len(goneErrs) > 0 && len(goneErrs) == len(answers) {
		c.mu.Unlock()
		return nil, firstGone // nothing else was fetched: as before, a member's Poll rides it out
	}
	for i, pr := range answers {
		ref := refs[i]
		if !c.parts.current(ref) || ref.state.paused {
			continue
		}
		st := ref.state
		switch pr.GetErrorCode() {
		case brookv1.ErrorCode_ERROR_CODE_UNSPECIFIED:
			for _, r := range pr.GetRecords() {
				if r.GetOffset() >= ref.position {
					fetchedBytes += proto.Size(r)
					out = append(out, fromProtoRecord(ref.tp.Topic, ref.tp.Partition, r))
				}
			}
			if next := pr.GetNextOffset(); next > st.position {
				st.position = next
			}
			st.end, st.endKnown = pr.GetEndOffset(), true
		case brookv1.ErrorCode_ERROR_CODE_OFFSET_OUT_OF_RANGE:
			// Retention passed the position (or it lies beyond the end): start over per WithResetPosition.
			to := pr.GetEndOffset()
			if c.cfg.reset == Earliest {
				to = pr.GetLogStartOffset()
			}
			c.log.Warn("brook: position out of range; resetting", "topic", ref.tp.Topic, "partition", ref.tp.Partition,
				"offset", ref.position, "log_start", pr.GetLogStartOffset(), "end", pr.GetEndOffset(),
				"reset_to", to, "reset", c.cfg.reset.String())
			c.parts.seek(st, to)
			st.end, st.endKnown = pr.GetEndOffset(), true
		}
	}
	c.mu.Unlock()
	c.stats.fetched(len(out), fetchedBytes)
	if len(out) == 0 && retriable != nil {
		return nil, retriable
	}
	return out, nil
}

// idle waits when there is nothing to fetch: for a rebalance or a loss (a
// member), or just the time (assigned partitions, all paused).
func (c *Consumer) idle(ctx context.Context, wait time.Duration) {
	if wait <= 0 {
		wait = consumerIdleWait
	}
	if c.member != nil {
		c.member.awaitChange(ctx, wait)
		return
	}
	_ = sleepCtx(ctx, wait)
}

// resolvePositions looks up where these partitions start: a pending SeekTo,
// else the group's committed offset, else WithResetPosition. One attempt;
// a partition sought or moved meanwhile keeps what it has now.
func (c *Consumer) resolvePositions(ctx context.Context, refs []consumerPartitionRef) error {
	if len(refs) == 0 {
		return nil
	}
	if c.cfg.group != "" {
		var need []TopicPartition
		for _, r := range refs {
			if r.reset.IsZero() {
				need = append(need, r.tp)
			}
		}
		if len(need) > 0 {
			committed, err := c.committedOnce(ctx, need)
			if err != nil {
				return err
			}
			c.mu.Lock()
			for _, r := range refs {
				if commit, ok := committed[r.tp]; ok && r.reset.IsZero() && c.parts.current(r) {
					c.parts.seek(r.state, commit.Offset)
				}
			}
			c.mu.Unlock()
		}
	}
	type lookup struct {
		pos  Position
		refs []consumerPartitionRef
	}
	var lookups []*lookup
	c.mu.Lock()
	for _, r := range refs {
		if !c.parts.current(r) {
			continue
		}
		pos := r.reset
		if pos.IsZero() {
			pos = c.cfg.reset
		}
		var l *lookup
		for _, x := range lookups {
			if x.pos == pos {
				l = x
			}
		}
		if l == nil {
			l = &lookup{pos: pos}
			lookups = append(lookups, l)
		}
		l.refs = append(l.refs, r)
	}
	c.mu.Unlock()
	for _, l := range lookups {
		tps := make([]TopicPartition, len(l.refs))
		for i, r := range l.refs {
			tps[i] = r.tp
		}
		offsets, err := c.listOffsetsOnce(ctx, l.pos, tps)
		if err != nil {
			return err
		}
		c.mu.Lock()
		for _, r := range l.refs {
			if offset, ok := offsets[r.tp]; ok && c.parts.current(r) {
				c.parts.seek(r.state, offset)
			}
		}
		c.mu.Unlock()
	}
	return nil
}

// listOffsetsOnce resolves pos for each partition, in one call.
func (c *Consumer) listOffsetsOnce(ctx context.Context, pos Position, tps []TopicPartition) (map[TopicPartition]int64, error) {
	req := &brookv1.ListOffsetsRequest{}
	for _, tp := range tps {
		req.Queries = append(req.Queries, &brookv1.OffsetQuery{Topic: tp.Topic, Partition: tp.Partition, Position: pos.proto()})
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.requestTimeout)
	defer cancel()
	resp, err := c.fetches.ListOffsets(ctx, req)
	if err != nil {
		return nil, callError(err)
	}
	out := make(map[TopicPartition]int64, len(tps))
	for i, a := range resp.GetAnswers() {
		if i >= len(tps) {
			break
		}
		if err := partitionError(a.GetErrorCode(), a.GetErrorMessage(), tps[i].Topic, tps[i].Partition); err != nil {
			return nil, err
		}
		out[tps[i]] = a.GetOffset()
	}
	return out, nil
}
