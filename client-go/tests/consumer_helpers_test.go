package tests

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/brook-io/brook/client-go/brook"
	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

// consumerGroupName is a group name unique to this test run.
func consumerGroupName(t testing.TB) string { return uniqueName(t, "g") }

// consumerProduce writes n records "prefix<i>" to one partition through the raw API.
func consumerProduce(t testing.TB, b *brokerProcess, topic string, partition int32, n int, prefix string) {
	t.Helper()
	records := make([]*brookv1.Record, n)
	for i := range records {
		records[i] = &brookv1.Record{Key: []byte(fmt.Sprint(i)), Value: []byte(fmt.Sprintf("%s%d", prefix, i))}
	}
	b.produceRaw(t, topic, partition, records...)
}

// consumerNew makes a consumer that the test's cleanup closes.
func consumerNew(t testing.TB, opts ...brook.ConsumerOption) *brook.Consumer {
	t.Helper()
	c, err := brook.NewConsumer(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = c.Close(ctx)
	})
	return c
}

// consumerPollN polls until at least n records came, failing the test when
// they do not within the time given.
func consumerPollN(t testing.TB, c *brook.Consumer, n int, within time.Duration) []*brook.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	var out []*brook.Record
	for len(out) < n {
		records, err := c.Poll(ctx)
		if err != nil {
			t.Fatalf("after %d of %d records: %v", len(out), n, err)
		}
		out = append(out, records...)
	}
	return out
}

// consumerAwait polls cond until it holds, failing the test after the time given.
func consumerAwait(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", within, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// consumerIsTimeout: Poll's context ended without a record.
func consumerIsTimeout(err error) bool {
	return errors.Is(err, context.DeadlineExceeded)
}

// consumerOffsets are the offsets of these records by partition, in the order read.
func consumerOffsets(records []*brook.Record) map[brook.TopicPartition][]int64 {
	out := make(map[brook.TopicPartition][]int64)
	for _, r := range records {
		tp := brook.TopicPartition{Topic: r.Topic, Partition: r.Partition}
		out[tp] = append(out[tp], r.Offset)
	}
	return out
}

// consumerRange is from, from+1, ..., to-1.
func consumerRange(from, to int64) []int64 {
	var out []int64
	for o := from; o < to; o++ {
		out = append(out, o)
	}
	return out
}

func consumerCtx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
