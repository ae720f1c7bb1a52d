package tests

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

// A Poll under way when the broker restarts retries with backoff; the
// restarted broker forgot the member, so the partitions are reported lost,
// the member joins again and each partition goes on from its committed
// offset: what was read after the commit is read again (at least once), and
// what is produced after the restart follows.
func TestConsumerRidesOutBrokerRestart(t *testing.T) {
	b := startBroker(t, "--set", "group.min.session.timeout.ms=1000")
	topic := b.createTopic(t, 2, nil)
	p0, p1 := brook.TopicPartition{Topic: topic, Partition: 0}, brook.TopicPartition{Topic: topic, Partition: 1}
	consumerProduce(t, b, topic, 0, 20, "before-")
	consumerProduce(t, b, topic, 1, 20, "before-")
	var lost atomic.Int32
	c := consumerNew(t, brook.WithBroker(b.Addr()), brook.WithGroup(consumerGroupName(t)), brook.WithTopics(topic),
		brook.WithResetPosition(brook.Earliest), brook.WithAutoCommit(false),
		brook.WithSessionTimeout(3*time.Second), brook.WithRebalanceTimeout(10*time.Second),
		brook.WithFetchMaxWait(200*time.Millisecond), brook.WithRetryBackoff(20*time.Millisecond, 300*time.Millisecond),
		brook.WithOnLost(func(context.Context, []brook.TopicPartition) { lost.Add(1) }))
	if got := consumerPollN(t, c, 40, 30*time.Second); len(got) != 40 {
		t.Fatalf("read %d records before the restart, want 40", len(got))
	}
	ctx := consumerCtx(t, 60*time.Second)
	committed := map[brook.TopicPartition]int64{p0: 10, p1: 10}
	if err := c.CommitOffsets(ctx, committed); err != nil {
		t.Fatal(err)
	}
	before := c.GroupMetadata()

	var mu sync.Mutex
	var after []*brook.Record
	pollCtx, stopPolling := context.WithCancel(ctx)
	var pollErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		for pollCtx.Err() == nil {
			records, err := c.Poll(pollCtx)
			if err != nil {
				if pollCtx.Err() == nil {
					mu.Lock()
					pollErr = err
					mu.Unlock()
					return
				}
				continue
			}
			mu.Lock()
			after = append(after, records...)
			mu.Unlock()
		}
	}()

	b.Restart()
	consumerAwait(t, 30*time.Second, "the member joined the restarted broker", func() bool {
		md := c.GroupMetadata()
		return md.MemberID != "" && md.MemberID != before.MemberID
	})
	consumerProduce(t, b, topic, 0, 20, "after-")
	consumerProduce(t, b, topic, 1, 20, "after-")
	consumerAwait(t, 30*time.Second, "60 records after the restart", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(after) >= 60 || pollErr != nil
	})
	stopPolling()
	<-done
	if pollErr != nil {
		t.Fatalf("Poll failed across the restart: %v", pollErr)
	}
	offsets := consumerOffsets(after)
	for _, tp := range []brook.TopicPartition{p0, p1} {
		if !slices.Equal(offsets[tp], consumerRange(10, 40)) {
			t.Errorf("%v after the restart: %v, want 10..39 once each", tp, offsets[tp])
		}
	}
	if n := lost.Load(); n != 1 {
		t.Errorf("partitions lost %d times, want once", n)
	}
	if md := c.GroupMetadata(); md.Generation <= before.Generation {
		t.Errorf("generation %d after the restart, %d before", md.Generation, before.Generation)
	}
	got, err := c.Committed(ctx)
	if err != nil || !maps.Equal(got, committed) {
		t.Errorf("committed after the restart %v, %v; want %v (no auto commit)", got, err, committed)
	}
	if err := c.CommitSync(ctx); err != nil {
		t.Errorf("commit as the new member: %v", err)
	}
	if err := c.Close(ctx); err != nil && !errors.Is(err, brook.ErrClientClosed) {
		t.Errorf("close: %v", err)
	}
}
