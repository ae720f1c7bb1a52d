package brook

import (
	"context"
	"sync"
	"time"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

// producerMetadata caches each topic's partition count, which the
// partitioner needs. One lookup per topic runs at a time; the others wait for it.
type producerMetadata struct {
	admin      brookv1.AdminServiceClient
	maxAge     time.Duration
	backoffMin time.Duration
	backoffMax time.Duration

	mu     sync.Mutex
	topics map[string]*topicPartitionCount
}

type topicPartitionCount struct {
	partitions int32
	fetched    time.Time
	loading    chan struct{} // non-nil while a lookup runs; closed when it ends
}

func newProducerMetadata(admin brookv1.AdminServiceClient, maxAge, backoffMin, backoffMax time.Duration) *producerMetadata {
	return &producerMetadata{admin: admin, maxAge: maxAge, backoffMin: backoffMin, backoffMax: backoffMax,
		topics: map[string]*topicPartitionCount{}}
}

// partitions is the topic's partition count: cached, or looked up (retrying
// while the broker is unreachable) until ctx ends.
func (m *producerMetadata) partitions(ctx context.Context, topic string) (int32, error) {
	for {
		m.mu.Lock()
		t := m.topics[topic]
		if t == nil {
			t = &topicPartitionCount{}
			m.topics[topic] = t
		}
		if t.partitions > 0 && time.Since(t.fetched) < m.maxAge {
			n := t.partitions
			m.mu.Unlock()
			return n, nil
		}
		if t.loading != nil {
			wait := t.loading
			m.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return 0, ctx.Err()
			}
		}
		t.loading = make(chan struct{})
		m.mu.Unlock()

		n, err := m.lookup(ctx, topic)

		m.mu.Lock()
		close(t.loading)
		t.loading = nil
		if err == nil {
			t.partitions, t.fetched = n, time.Now()
		}
		m.mu.Unlock()
		return n, err
	}
}

// forget drops a topic's count, so that the next record looks it up again
// (after the broker answered UNKNOWN_PARTITION or UNKNOWN_TOPIC).
func (m *producerMetadata) forget(topic string) {
	m.mu.Lock()
	if t := m.topics[topic]; t != nil && t.loading == nil {
		delete(m.topics, topic)
	}
	m.mu.Unlock()
}

// lookup asks the broker, retrying while it is unreachable; when ctx ends it
// returns the last failure before (not the call ctx cut short), so that the
// record's error says why it waited.
func (m *producerMetadata) lookup(ctx context.Context, topic string) (int32, error) {
	t, err := m.describe(ctx, topic, 0)
	return int32(len(t.GetPartitions())), err
}

// describe reads the topic from the broker, retrying retriable failures with
// backoff until ctx ends; each attempt within perCall when it is not 0.
func (m *producerMetadata) describe(ctx context.Context, topic string, perCall time.Duration) (*brookv1.TopicDescription, error) {
	b := newBackoff(m.backoffMin, m.backoffMax)
	var last error
	for {
		callCtx, cancel := ctx, context.CancelFunc(func() {})
		if perCall > 0 {
			callCtx, cancel = context.WithTimeout(ctx, perCall)
		}
		resp, err := m.admin.DescribeTopic(callCtx, &brookv1.DescribeTopicRequest{Name: topic})
		cancel()
		if err == nil {
			return resp.GetTopic(), nil
		}
		err = callError(err)
		if ctx.Err() != nil && last != nil {
			return nil, last
		}
		if !isRetriable(err) {
			return nil, err
		}
		last = err
		if werr := b.wait(ctx); werr != nil {
			return nil, err
		}
	}
}
