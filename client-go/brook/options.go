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
