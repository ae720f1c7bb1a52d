package brook

import (
	"time"

	"google.golang.org/grpc"
)

// Option configures any of the clients: the broker to reach and how.
// Options that only one client understands have that client's option type
// (ProducerOption, ConsumerOption, AckConsumerOption, AdminOption).
type Option interface {
	ProducerOption
	ConsumerOption
	AckConsumerOption
	AdminOption
}

// ProducerOption configures NewProducer.
type ProducerOption interface{ applyProducer(*producerConfig) }

// ConsumerOption configures NewConsumer.
type ConsumerOption interface{ applyConsumer(*consumerConfig) }

// AckConsumerOption configures NewAckConsumer.
type AckConsumerOption interface{ applyAckConsumer(*ackConsumerConfig) }

// AdminOption configures NewAdmin.
type AdminOption interface{ applyAdmin(*adminConfig) }

// connOption sets the connection part every client's config has.
type connOption func(*connConfig)

func (o connOption) applyProducer(c *producerConfig)       { o(&c.conn) }
func (o connOption) applyConsumer(c *consumerConfig)       { o(&c.conn) }
func (o connOption) applyAckConsumer(c *ackConsumerConfig) { o(&c.conn) }
func (o connOption) applyAdmin(c *adminConfig)             { o(&c.conn) }

// WithBroker is the broker's address, host:port. Each client then owns its
// connection and closes it in Close. Exactly one of WithBroker and WithConn is required.
func WithBroker(address string) Option {
	return connOption(func(c *connConfig) { c.address = address })
}

// WithConn shares a connection the caller made (for example one for several
// clients, or with TLS). The client never closes it.
func WithConn(conn *grpc.ClientConn) Option {
	return connOption(func(c *connConfig) { c.shared = conn })
}

// WithClientID names the client to the broker (group descriptions and the
// broker's logs show it). Default "brook-go".
func WithClientID(id string) Option {
	return connOption(func(c *connConfig) { c.clientID = id })
}

// WithDialOptions adds gRPC dial options to the connection WithBroker makes
// (after Brook's own, so they win).
func WithDialOptions(opts ...grpc.DialOption) Option {
	return connOption(func(c *connConfig) { c.dialOptions = append(c.dialOptions, opts...) })
}

// WithKeepalive sets how often an idle connection is pinged (default 30s,
// at least 10s: grpc-go pings no more often, and the broker accepts pings
// every 5s, so the broker never closes the connection for pinging too often).
func WithKeepalive(interval time.Duration) Option {
	return connOption(func(c *connConfig) { c.keepalive = interval })
}

// groupOption sets what the two consumers share.
type groupOption func(group *string, topics *[]string)

func (o groupOption) applyConsumer(c *consumerConfig)       { o(&c.group, &c.topics) }
func (o groupOption) applyAckConsumer(c *ackConsumerConfig) { o(&c.group, &c.topics) }

// GroupOption configures either consumer.
type GroupOption interface {
	ConsumerOption
	AckConsumerOption
}

// WithGroup is the consumer group to join. The Consumer needs it to
// subscribe (without it, it reads the partitions it is assigned); the
// AckConsumer always needs it.
func WithGroup(group string) GroupOption {
	return groupOption(func(g *string, _ *[]string) { *g = group })
}

// WithTopics are the topics to consume: the Consumer's subscription, the
// AckConsumer's topics.
func WithTopics(topics ...string) GroupOption {
	return groupOption(func(_ *string, t *[]string) { *t = append(*t, topics...) })
}

// RequestTimeoutOption configures the Producer, the Consumer and the Admin.
type RequestTimeoutOption interface {
	ProducerOption
	ConsumerOption
	AdminOption
}

type requestTimeoutOption time.Duration

func (o requestTimeoutOption) applyProducer(c *producerConfig) { c.requestTimeout = time.Duration(o) }
func (o requestTimeoutOption) applyConsumer(c *consumerConfig) { c.requestTimeout = time.Duration(o) }
func (o requestTimeoutOption) applyAdmin(c *adminConfig)       { c.requestTimeout = time.Duration(o) }

// WithRequestTimeout bounds each call to the broker (default 30s): the
// Admin's calls and the Consumer's (a fetch waits at most WithFetchMaxWait
// of it); the Producer's stream may stay silent this long while requests wait
// for answers before it is replaced and the batches are sent again.
func WithRequestTimeout(d time.Duration) RequestTimeoutOption { return requestTimeoutOption(d) }

// RetryBackoffOption configures the Producer and both consumers.
type RetryBackoffOption interface {
	ProducerOption
	ConsumerOption
	AckConsumerOption
}

type retryBackoffOption struct{ min, max time.Duration }

func (o retryBackoffOption) applyProducer(c *producerConfig) {
	c.backoffMin, c.backoffMax = o.min, o.max
}
func (o retryBackoffOption) applyConsumer(c *consumerConfig) {
	c.backoffMin, c.backoffMax = o.min, o.max
}
func (o retryBackoffOption) applyAckConsumer(c *ackConsumerConfig) {
	c.backoffMin, c.backoffMax = o.min, o.max
}

// WithRetryBackoff is the wait before retrying after the broker could not be
// reached or answered a retriable error: first min, doubling up to max (Kafka's
// retry.backoff.ms and retry.backoff.max.ms). Defaults: Producer 100ms to 1s,
// Consumer 50ms to 1s, AckConsumer 100ms to 5s.
func WithRetryBackoff(min, max time.Duration) RetryBackoffOption {
	return retryBackoffOption{min: min, max: max}
}

func retryBackoffProblems(p *problems, min, max time.Duration) {
	switch {
	case min < time.Millisecond:
		p.add("WithRetryBackoff(%v, %v): the first wait must be at least 1ms", min, max)
	case max < min || max > time.Hour:
		p.add("WithRetryBackoff(%v, %v): the longest wait must be in [%v, 1h]", min, max, min)
	}
}
