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

// ackProduceValues writes n records "prefix-0" .. "prefix-<n-1>" to one partition.
func ackProduceValues(t testing.TB, b *brokerProcess, topic string, partition int32, n int, prefix string) {
	t.Helper()
	records := make([]*brookv1.Record, n)
	for i := range records {
		records[i] = &brookv1.Record{Value: fmt.Appendf(nil, "%s-%d", prefix, i)}
	}
	b.produceRaw(t, topic, partition, records...)
}

// ackGroupName is a group name unique to this test run.
func ackGroupName(t testing.TB) string { return uniqueName(t, "g") }

// ackAdmin is an Admin for the broker, closed when the test ends.
func ackAdmin(t testing.TB, b *brokerProcess) *brook.Admin {
	t.Helper()
	a, err := brook.NewAdmin(brook.WithBroker(b.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close(context.Background()) })
	return a
}

// ackGroup creates an ack-mode group that starts at the beginning of its
// topics, with more config as key, value pairs.
func ackGroup(t testing.TB, a *brook.Admin, config ...string) string {
	t.Helper()
	name := ackGroupName(t)
	cfg := map[string]string{"auto.offset.reset": "earliest"}
	for i := 0; i+1 < len(config); i += 2 {
		cfg[config[i]] = config[i+1]
	}
	if _, err := a.CreateGroup(ackCtx(t), name, brook.GroupModeAck, cfg); err != nil {
		t.Fatalf("create group %s: %v", name, err)
	}
	return name
}

// ackCtx is a context for one call: 30 s, and no longer than the test.
func ackCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// ackConsumer makes an AckConsumer for the broker, closed when the test ends
// (unless the test closed it).
func ackConsumer(t testing.TB, b *brokerProcess, group string, topics []string, opts ...brook.AckConsumerOption) *brook.AckConsumer {
	t.Helper()
	all := append([]brook.AckConsumerOption{brook.WithBroker(b.Addr()), brook.WithGroup(group), brook.WithTopics(topics...)}, opts...)
	c, err := brook.NewAckConsumer(all...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = c.Close(ctx)
	})
	return c
}

// ackPoll polls once for at most d; no records when none came.
func ackPoll(t testing.TB, c *brook.AckConsumer, d time.Duration) []*brook.AckRecord {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	recs, err := c.Poll(ctx)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("poll: %v", err)
	}
	return recs
}

// ackTake polls until at least n records came; fails after 20 s.
func ackTake(t testing.TB, c *brook.AckConsumer, n int) []*brook.AckRecord {
	t.Helper()
	var got []*brook.AckRecord
	deadline := time.Now().Add(20 * time.Second)
	for len(got) < n && time.Now().Before(deadline) {
		got = append(got, ackPoll(t, c, 200*time.Millisecond)...)
	}
	if len(got) < n {
		t.Fatalf("received %d records in 20 s, want %d", len(got), n)
	}
	return got
}

// ackAwaitAllSettled waits (20 s at most) until every partition of the group
// has nothing unsettled up to its end, and returns the group as it is then.
func ackAwaitAllSettled(t testing.TB, a *brook.Admin, group string) brook.GroupInfo {
	t.Helper()
	return ackAwaitGroup(t, a, group, "everything settled", ackAllSettled)
}

// ackAwaitGroup describes the group until cond holds, for up to 20 s.
func ackAwaitGroup(t testing.TB, a *brook.Admin, group, what string, cond func(brook.GroupInfo) bool) brook.GroupInfo {
	t.Helper()
	var g brook.GroupInfo
	var err error
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		g, err = a.DescribeGroup(ctx, group)
		cancel()
		if err == nil && len(g.Partitions) > 0 && cond(g) {
			return g
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("not %s in 20 s: %+v (%v)", what, g, err)
	return g
}

func ackAllSettled(g brook.GroupInfo) bool {
	for _, p := range g.Partitions {
		if p.CommittedOffset != p.EndOffset || p.UnsettledRecords != 0 {
			return false
		}
	}
	return true
}

// ackHeaders is a record's headers as a map (the last value of a key wins).
func ackHeaders(hs []*brookv1.Header) map[string]string {
	out := map[string]string{}
	for _, h := range hs {
		out[h.GetKey()] = string(h.GetValue())
	}
	return out
}
