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
	b := newBackoff(m.backoffMin, m.backoffMax)
	var last error
	for {
		resp, err := m.admin.DescribeTopic(ctx, &brookv1.DescribeTopicRequest{Name: topic})
		if err == nil {
			return int32(len(resp.GetTopic().GetPartitions())), nil
		}
		err = callError(err)
		if ctx.Err() != nil && last != nil {
			return 0, last
		}
		if !isRetriable(err) {
			return 0, err
		}
		last = err
		if werr := b.wait(ctx); werr != nil {
			return 0, err
		}
	}
}
