package tests

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/brook-io/brook/client-go/brook"
	"github.com/brook-io/brook/client-go/brookprom"
)

// metricsProduce sends n keyed records "value-<i>" and fails the test on any error.
func metricsProduce(t *testing.T, p *brook.Producer, topic string, n int) {
	t.Helper()
	records := make([]*brook.Record, n)
	for i := range records {
		records[i] = &brook.Record{Topic: topic, Key: []byte(fmt.Sprint("key-", i)), Value: []byte(fmt.Sprint("value-", i))}
	}
	if err := p.ProduceSync(testCtx(t, 60*time.Second), records...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

func TestProducerStatsCountRecordsBytesBatchesLatencyAndErrorsByReason(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 3, nil)
	small := b.createTopic(t, 1, map[string]string{"max.record.bytes": "2000"})
	p := newProducer(t, b, brook.WithLinger(5*time.Millisecond))
	if s := p.Stats(); s.RecordsSent != 0 || len(s.Errors) != 0 {
		t.Fatalf("a new producer's stats: %+v", s)
	}
	metricsProduce(t, p, topic, 1000)

	s := p.Stats()
	if s.RecordsSent != 1000 {
		t.Errorf("RecordsSent = %d, want 1000", s.RecordsSent)
	}
	if s.BytesSent <= int64(1000*len("value-")) {
		t.Errorf("BytesSent = %d, less than the values alone", s.BytesSent)
	}
	if s.BatchesSent < 3 || s.BatchesSent > 1000 {
		t.Errorf("BatchesSent = %d, want 3..1000 (at least one per partition)", s.BatchesSent)
	}
	if s.Requests < 1 || s.Requests > s.BatchesSent || s.RequestLatency <= 0 {
		t.Errorf("Requests = %d, RequestLatency = %v: want samples of the answered requests", s.Requests, s.RequestLatency)
	}
	if s.RequestsInFlight != 0 || s.BufferedBytes != 0 {
		t.Errorf("all answered, yet RequestsInFlight = %d, BufferedBytes = %d", s.RequestsInFlight, s.BufferedBytes)
	}
	if s.BufferLimitBytes != 32<<20 {
		t.Errorf("BufferLimitBytes = %d, want the default 32 MiB", s.BufferLimitBytes)
	}
	if s.Retries != 0 || len(s.Errors) != 0 {
		t.Errorf("Retries = %d, Errors = %v on a healthy broker", s.Retries, s.Errors)
	}

	// The broker refuses a record over the topic's max.record.bytes: one record failed, by its reason.
	err := p.ProduceSync(testCtx(t, 30*time.Second), &brook.Record{Topic: small, Value: []byte(strings.Repeat("x", 5000))}).FirstErr()
	if !errors.Is(err, brook.ErrRecordTooLarge) {
		t.Fatalf("a record over max.record.bytes: %v", err)
	}
	if got := p.Stats().Errors; len(got) != 1 || got["RECORD_TOO_LARGE"] != 1 {
		t.Errorf("Errors = %v, want RECORD_TOO_LARGE: 1", got)
	}

	// One whose context ended before it was buffered counts too.
	dead, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.ProduceSync(dead, &brook.Record{Topic: small, Value: []byte("v")}).FirstErr(); !errors.Is(err, brook.ErrRecordNotSent) {
		t.Fatalf("a record with an ended context: %v, want ErrRecordNotSent", err)
	}
	if got := p.Stats().Errors["NOT_SENT"]; got != 1 {
		t.Errorf("Errors = %v, want NOT_SENT: 1", p.Stats().Errors)
	}
}

func TestConsumerStatsCountFetchedRecordsLagRebalancesAndCommits(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 3, nil)
	p := newProducer(t, b)
	metricsProduce(t, p, topic, 600)
	c := consumerNew(t, brook.WithBroker(b.Addr()), brook.WithGroup(consumerGroupName(t)), brook.WithTopics(topic),
		brook.WithResetPosition(brook.Earliest), brook.WithAutoCommit(false), brook.WithMaxPollRecords(50),
		brook.WithFetchMaxWait(100*time.Millisecond))

	got := consumerPollN(t, c, 1, 30*time.Second)
	s := c.Stats()
	if s.Rebalances != 1 {
		t.Errorf("Rebalances = %d after the first join, want 1", s.Rebalances)
	}
	var behind int64
	for _, n := range s.Lag {
		behind += n
	}
	if behind == 0 {
		t.Errorf("Lag = %v after a first poll of at most 50 of 600 records", s.Lag)
	}
	got = append(got, consumerPollN(t, c, 600-len(got), 60*time.Second)...)
	if len(got) != 600 {
		t.Fatalf("polled %d records, want 600", len(got))
	}
	// Poll until each partition's last fetch saw its end (the end of a partition read last may be one fetch away).
	consumerAwait(t, 30*time.Second, "every partition's lag is 0", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		if records, _ := c.Poll(ctx); len(records) > 0 {
			t.Fatalf("%d records more than produced", len(records))
		}
		lag := c.Stats().Lag
		for _, n := range lag {
			if n != 0 {
				return false
			}
		}
		return len(lag) == 3
	})

	s = c.Stats()
	if s.RecordsFetched != 600 {
		t.Errorf("RecordsFetched = %d, want 600", s.RecordsFetched)
	}
	if s.BytesFetched <= int64(600*len("value-")) || s.Fetches < 1 {
		t.Errorf("BytesFetched = %d, Fetches = %d", s.BytesFetched, s.Fetches)
	}
	if err := c.CommitSync(testCtx(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	var asyncErr error
	asyncDone := false
	c.CommitAsync(nil, func(_ map[brook.TopicPartition]int64, err error) { asyncErr, asyncDone = err, true })
	consumerAwait(t, 30*time.Second, "the async commit's callback", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, _ = c.Poll(ctx) // runs the callbacks of async commits answered
		return asyncDone
	})
	if asyncErr != nil {
		t.Fatal(asyncErr)
	}
	if err := c.CommitSync(testCtx(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	s = c.Stats()
	if s.Commits != 3 || s.CommitFailures != 0 || s.CommitLatency <= 0 {
		t.Errorf("Commits = %d, CommitFailures = %d, CommitLatency = %v; want 3 commits answered", s.Commits,
			s.CommitFailures, s.CommitLatency)
	}
}

func TestConsumerStatsCountARebalanceInBothMembers(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 2, nil)
	group := consumerGroupName(t)
	opts := []brook.ConsumerOption{brook.WithBroker(b.Addr()), brook.WithGroup(group), brook.WithTopics(topic),
		brook.WithFetchMaxWait(100 * time.Millisecond), brook.WithSessionTimeout(6 * time.Second)}
	first := consumerNew(t, opts...)
	pollUntil := func(c *brook.Consumer, what string, cond func() bool) {
		deadline := time.Now().Add(60 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Errorf("not within 60 s: %s", what)
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			_, _ = c.Poll(ctx)
			cancel()
		}
	}
	pollUntil(first, "the first member holds both partitions", func() bool { return len(first.Assignment()) == 2 })
	if n := first.Stats().Rebalances; n != 1 {
		t.Fatalf("Rebalances = %d after the first join, want 1", n)
	}
	second := consumerNew(t, opts...)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		pollUntil(second, "the second member holds one partition", func() bool { return len(second.Assignment()) == 1 })
	}()
	pollUntil(first, "the first member holds one partition", func() bool { return len(first.Assignment()) == 1 })
	wg.Wait()
	if n := first.Stats().Rebalances; n != 2 {
		t.Errorf("first member: Rebalances = %d, want 2", n)
	}
	if n := second.Stats().Rebalances; n != 1 {
		t.Errorf("second member: Rebalances = %d, want 1", n)
	}
}

// The brookprom collectors show the same counts through a Prometheus registry.
func TestBrookpromCollectorsExposeTheStats(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 2, nil)
	small := b.createTopic(t, 1, map[string]string{"max.record.bytes": "2000"})
	reg := prometheus.NewPedanticRegistry()
	labels := prometheus.Labels{"app": "test"}

	p := newProducer(t, b)
	reg.MustRegister(brookprom.NewProducerCollector(p, labels))
	metricsProduce(t, p, topic, 200)
	_ = p.ProduceSync(testCtx(t, 30*time.Second), &brook.Record{Topic: small, Value: []byte(strings.Repeat("x", 5000))})
	want := `
# HELP brook_producer_errors_total Records that failed, by the error's reason.
# TYPE brook_producer_errors_total counter
brook_producer_errors_total{app="test",reason="RECORD_TOO_LARGE"} 1
# HELP brook_producer_requests_in_flight Produce requests sent and not yet answered.
# TYPE brook_producer_requests_in_flight gauge
brook_producer_requests_in_flight{app="test"} 0
# HELP brook_producer_sent_records_total Records the broker acknowledged as written.
# TYPE brook_producer_sent_records_total counter
brook_producer_sent_records_total{app="test"} 200
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "brook_producer_sent_records_total",
		"brook_producer_errors_total", "brook_producer_requests_in_flight"); err != nil {
		t.Error(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "brook_producer_request_latency_seconds" {
			s := f.GetMetric()[0].GetSummary()
			if s.GetSampleCount() < 1 || s.GetSampleSum() <= 0 {
				t.Errorf("request latency summary: %d samples, %v s", s.GetSampleCount(), s.GetSampleSum())
			}
		}
	}

	c := consumerNew(t, brook.WithBroker(b.Addr()), brook.WithGroup(consumerGroupName(t)), brook.WithTopics(topic),
		brook.WithResetPosition(brook.Earliest), brook.WithAutoCommit(false), brook.WithFetchMaxWait(100*time.Millisecond))
	reg.MustRegister(brookprom.NewConsumerCollector(c, labels))
	consumerPollN(t, c, 200, 60*time.Second)
	consumerAwait(t, 30*time.Second, "both partitions' lag known and 0", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, _ = c.Poll(ctx)
		lag := c.Stats().Lag
		return len(lag) == 2 && lag[brook.TopicPartition{Topic: topic, Partition: 0}] == 0 &&
			lag[brook.TopicPartition{Topic: topic, Partition: 1}] == 0
	})
	want = fmt.Sprintf(`
# HELP brook_consumer_fetched_records_total Records the fetch answers held from the positions on.
# TYPE brook_consumer_fetched_records_total counter
brook_consumer_fetched_records_total{app="test"} 200
# HELP brook_consumer_lag End offset minus position of an assigned partition, as the last fetch saw it.
# TYPE brook_consumer_lag gauge
brook_consumer_lag{app="test",partition="0",topic="%[1]s"} 0
brook_consumer_lag{app="test",partition="1",topic="%[1]s"} 0
# HELP brook_consumer_rebalances_total Joins of the group completed.
# TYPE brook_consumer_rebalances_total counter
brook_consumer_rebalances_total{app="test"} 1
`, topic)
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "brook_consumer_fetched_records_total",
		"brook_consumer_lag", "brook_consumer_rebalances_total"); err != nil {
		t.Error(err)
	}

	jobs := b.createTopic(t, 1, nil)
	ackProduceValues(t, b, jobs, 0, 20, "job")
	a := ackConsumer(t, b, ackGroup(t, ackAdmin(t, b)), []string{jobs})
	reg.MustRegister(brookprom.NewAckConsumerCollector(a, labels))
	for _, r := range ackTake(t, a, 20) {
		if err := a.Ack(r); err != nil {
			t.Fatal(err)
		}
	}
	want = `
# HELP brook_ack_consumer_received_records_total Deliveries received.
# TYPE brook_ack_consumer_received_records_total counter
brook_ack_consumer_received_records_total{app="test"} 20
# HELP brook_ack_consumer_settles_queued_total Acks, nacks, rejects and lease extensions asked for.
# TYPE brook_ack_consumer_settles_queued_total counter
brook_ack_consumer_settles_queued_total{app="test"} 20
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "brook_ack_consumer_received_records_total",
		"brook_ack_consumer_settles_queued_total"); err != nil {
		t.Error(err)
	}
}
