package tests

import (
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

// Commits carry metadata (Kafka's OffsetAndMetadata): another consumer of
// the group and the admin read it back; the int64 calls still work.
func TestConsumerCommitMetadataIsReadBackByAnotherConsumerAndTheAdmin(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 2, nil)
	consumerProduce(t, b, topic, 0, 5, "")
	consumerProduce(t, b, topic, 1, 5, "")
	p0, p1 := brook.TopicPartition{Topic: topic, Partition: 0}, brook.TopicPartition{Topic: topic, Partition: 1}
	group := consumerGroupName(t)
	ctx := consumerCtx(t, 40*time.Second)

	writer := consumerNew(t, brook.WithBroker(b.Addr()), brook.WithGroup(group), brook.WithAutoCommit(false))
	if err := writer.Assign(p0, p1); err != nil {
		t.Fatal(err)
	}
	want := map[brook.TopicPartition]brook.OffsetAndMetadata{
		p0: {Offset: 3, Metadata: "db-txn=42"},
		p1: {Offset: 1, Metadata: "grüße ✓"},
	}
	if err := writer.CommitOffsetsWithMetadata(ctx, want); err != nil {
		t.Fatal(err)
	}

	// Async: the callback hears the commits it was given, with their metadata.
	var async []string
	writer.CommitAsyncWithMetadata(map[brook.TopicPartition]brook.OffsetAndMetadata{p1: {Offset: 2, Metadata: "async"}},
		func(offsets map[brook.TopicPartition]brook.OffsetAndMetadata, err error) {
			async = append(async, offsets[p1].Metadata)
			if err != nil {
				async = append(async, err.Error())
			}
		})
	consumerAwait(t, 10*time.Second, "the async commit's callback", func() bool {
		_ = writer.CommitOffsets(ctx, nil) // runs the callbacks of async commits that ended
		return len(async) > 0
	})
	if strings.Join(async, " ") != "async" {
		t.Fatalf("async callback heard %q", async)
	}
	want[p1] = brook.OffsetAndMetadata{Offset: 2, Metadata: "async"}

	reader := consumerNew(t, brook.WithBroker(b.Addr()), brook.WithGroup(group), brook.WithAutoCommit(false))
	got, err := reader.CommittedWithMetadata(ctx, p0, p1)
	if err != nil || !maps.Equal(got, want) {
		t.Fatalf("another consumer read %v, %v; want %v", got, err, want)
	}
	if offsets, err := reader.Committed(ctx, p0, p1); err != nil ||
		!maps.Equal(offsets, map[brook.TopicPartition]int64{p0: 3, p1: 2}) {
		t.Errorf("Committed gave %v, %v", offsets, err)
	}
	committed, err := ackAdmin(t, b).CommittedOffsets(ctx, group)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range committed {
		tp := brook.TopicPartition{Topic: o.Topic, Partition: o.Partition}
		if w := want[tp]; o.Offset != w.Offset || o.Metadata != w.Metadata {
			t.Errorf("the admin reads %+v; want %+v", o, w)
		}
	}
	if len(committed) != 2 {
		t.Errorf("the admin reads %d commits, want 2", len(committed))
	}

	// A commit without metadata stores none, as in Kafka.
	if err := writer.CommitOffsets(ctx, map[brook.TopicPartition]int64{p0: 4}); err != nil {
		t.Fatal(err)
	}
	if got, err := reader.CommittedWithMetadata(ctx, p0); err != nil || got[p0] != (brook.OffsetAndMetadata{Offset: 4}) {
		t.Errorf("after a commit without metadata: %v, %v", got, err)
	}
}

// The broker keeps at most 4096 bytes of metadata (Kafka's limit, in UTF-8
// bytes, not characters); more is ErrInvalidRequest and stores nothing.
func TestConsumerCommitMetadataOverTheLimitIsRefused(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 1, nil)
	consumerProduce(t, b, topic, 0, 3, "")
	tp := brook.TopicPartition{Topic: topic, Partition: 0}
	ctx := consumerCtx(t, 40*time.Second)
	c := consumerNew(t, brook.WithBroker(b.Addr()), brook.WithGroup(consumerGroupName(t)), brook.WithAutoCommit(false))
	if err := c.Assign(tp); err != nil {
		t.Fatal(err)
	}
	atLimit := strings.Repeat("é", 2048) // 4096 bytes
	commit := func(offset int64, metadata string) error {
		return c.CommitOffsetsWithMetadata(ctx, map[brook.TopicPartition]brook.OffsetAndMetadata{tp: {Offset: offset, Metadata: metadata}})
	}
	if err := commit(1, atLimit); err != nil {
		t.Fatalf("4096 bytes: %v", err)
	}
	for _, over := range []string{strings.Repeat("x", 4097), strings.Repeat("é", 3000)} {
		err := commit(2, over)
		if !errors.Is(err, brook.ErrInvalidRequest) || !strings.Contains(err.Error(), "bytes") {
			t.Errorf("%d characters, %d bytes of metadata gave %v; want ErrInvalidRequest", len([]rune(over)), len(over), err)
		}
	}
	if got, err := c.CommittedWithMetadata(ctx, tp); err != nil || got[tp] != (brook.OffsetAndMetadata{Offset: 1, Metadata: atLimit}) {
		t.Errorf("a refused commit changed what is stored: %v, %v", got[tp].Offset, err)
	}
	if err := commit(-1, ""); err == nil {
		t.Error("a negative offset must be refused")
	}
}
