package brook

import (
	"context"
	"fmt"
	"maps"
)

// OffsetAndMetadata is a commit with the text the group keeps beside the
// offset (Kafka's OffsetAndMetadata): for example where an external store
// stands, or who committed. The broker refuses metadata longer than 4096
// bytes (ErrInvalidRequest).
type OffsetAndMetadata struct {
	// Offset is the next offset to read, as in every commit.
	Offset   int64
	Metadata string
}

// CommitOffsetsWithMetadata commits these offsets with their metadata, as
// CommitOffsets does (CommittedWithMetadata and Admin.CommittedOffsets read
// the metadata back).
func (c *Consumer) CommitOffsetsWithMetadata(ctx context.Context, offsets map[TopicPartition]OffsetAndMetadata) error {
	if c.isClosed() {
		return ErrClientClosed
	}
	for tp, o := range offsets {
		if o.Offset < 0 {
			return fmt.Errorf("brook: CommitOffsetsWithMetadata: offset %d of %s/%d is negative", o.Offset, tp.Topic, tp.Partition)
		}
	}
	return c.commit(ctx, maps.Clone(offsets), true)
}

// CommitAsyncWithMetadata is CommitAsync of these offsets with their
// metadata; onDone hears them back with the outcome.
func (c *Consumer) CommitAsyncWithMetadata(offsets map[TopicPartition]OffsetAndMetadata,
	onDone func(offsets map[TopicPartition]OffsetAndMetadata, err error)) {
	if offsets == nil {
		offsets = map[TopicPartition]OffsetAndMetadata{} // nil would mean every position
	}
	c.commitAsync(offsets, onDone)
}

// withoutMetadata is offsets as commits with no metadata; nil stays nil.
func withoutMetadata(offsets map[TopicPartition]int64) map[TopicPartition]OffsetAndMetadata {
	if offsets == nil {
		return nil
	}
	out := make(map[TopicPartition]OffsetAndMetadata, len(offsets))
	for tp, o := range offsets {
		out[tp] = OffsetAndMetadata{Offset: o}
	}
	return out
}

// offsetsOnly is the offsets of these commits.
func offsetsOnly(commits map[TopicPartition]OffsetAndMetadata) map[TopicPartition]int64 {
	if commits == nil {
		return nil
	}
	out := make(map[TopicPartition]int64, len(commits))
	for tp, c := range commits {
		out[tp] = c.Offset
	}
	return out
}
