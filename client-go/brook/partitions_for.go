package brook

import (
	"context"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

// PartitionsFor describes the topic's partitions as the broker has them now
// (Kafka's partitionsFor; the same PartitionInfo as Admin.DescribeTopic's).
// Fails with ErrUnknownTopic for a topic that does not exist; retries
// retriable failures (the broker unreachable or recovering) until ctx ends,
// each attempt within WithRequestTimeout.
func (p *Producer) PartitionsFor(ctx context.Context, topic string) ([]PartitionInfo, error) {
	select {
	case <-p.closing:
		return nil, ErrClientClosed
	default:
	}
	t, err := p.meta.describe(ctx, topic, p.cfg.requestTimeout)
	if err != nil {
		return nil, blockError(ctx, err)
	}
	return topicInfoOf(t).Partitions, nil
}

// PartitionsFor describes the topic's partitions as the broker has them now
// (Kafka's partitionsFor; the same PartitionInfo as Admin.DescribeTopic's),
// assigned to this consumer or not. Fails with ErrUnknownTopic for a topic
// that does not exist; retries while the broker is unreachable until ctx ends.
func (c *Consumer) PartitionsFor(ctx context.Context, topic string) ([]PartitionInfo, error) {
	if c.isClosed() {
		return nil, ErrClientClosed
	}
	admin := brookv1.NewAdminServiceClient(c.conn)
	var out []PartitionInfo
	err := c.retrying(ctx, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, c.cfg.requestTimeout)
		defer cancel()
		resp, err := admin.DescribeTopic(ctx, &brookv1.DescribeTopicRequest{Name: topic})
		if err != nil {
			return callError(err)
		}
		out = topicInfoOf(resp.GetTopic()).Partitions
		return nil
	})
	return out, err
}
