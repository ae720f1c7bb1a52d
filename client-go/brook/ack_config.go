package brook

import (
	"time"
)

// Defaults and limits of the AckConsumer's options.
const (
	ackDefaultMaxOutstandingRecords = 1000
	ackDefaultMaxOutstandingBytes   = 100 << 20
	ackDefaultMaxPollRecords        = 500
	ackDefaultFlushInterval         = 100 * time.Millisecond
	ackMaxFlushInterval             = time.Minute
	ackDefaultMaxBatch              = 1000
	ackDefaultBackoffMin            = 100 * time.Millisecond
	ackDefaultBackoffMax            = 10 * time.Second
	// ackDefaultCloseTimeout bounds Close when its ctx has no deadline.
	ackDefaultCloseTimeout = 30 * time.Second
	// ackMaxNackDelay and the lease bounds are the broker's.
	ackMaxNackDelay = 24 * time.Hour
	leaseMin        = time.Millisecond
	leaseMax        = time.Hour
)

// ackConsumerConfig is NewAckConsumer's configuration.
type ackConsumerConfig struct {
	conn   connConfig
	group  string
	topics []string

	memberID              string
	memberIDSet           bool
	maxOutstandingRecords int64
	maxOutstandingBytes   int64
	maxPollRecords        int
	flushInterval         time.Duration
	maxBatch              int
	backoffMin            time.Duration
	backoffMax            time.Duration
	failureHandler        func(*SettleError)
	failureHandlerSet     bool
}

func ackDefaultConfig() ackConsumerConfig {
	return ackConsumerConfig{
		conn:                  defaultConnConfig(),
		maxOutstandingRecords: ackDefaultMaxOutstandingRecords,
		maxOutstandingBytes:   ackDefaultMaxOutstandingBytes,
		maxPollRecords:        ackDefaultMaxPollRecords,
		flushInterval:         ackDefaultFlushInterval,
		maxBatch:              ackDefaultMaxBatch,
		backoffMin:            ackDefaultBackoffMin,
		backoffMax:            ackDefaultBackoffMax,
	}
}

// validate adds every problem of the options to p.
func (c *ackConsumerConfig) validate(p *problems) {
	c.conn.validate(p)
	if c.group == "" {
		p.add("WithGroup: an ack consumer needs a group")
	} else if why := topicNameProblem(c.group); why != "" {
		p.add("WithGroup(%q): %s", c.group, why)
	}
	if len(c.topics) == 0 {
		p.add("WithTopics: an ack consumer needs at least one topic")
	}
	for _, t := range c.topics {
		if why := topicNameProblem(t); why != "" {
			p.add("WithTopics(%q): %s", t, why)
		}
	}
	if c.memberIDSet && c.memberID == "" {
		p.add("WithAckMemberID: must not be empty (leave it out instead)")
	}
	p.positive("WithMaxOutstandingRecords", c.maxOutstandingRecords)
	p.positive("WithMaxOutstandingBytes", c.maxOutstandingBytes)
	p.positive("WithAckMaxPollRecords", int64(c.maxPollRecords))
	p.duration("WithAckFlushInterval", c.flushInterval, 0, ackMaxFlushInterval)
	p.positive("WithAckMaxBatch", int64(c.maxBatch))
	retryBackoffProblems(p, c.backoffMin, c.backoffMax)
	if c.failureHandlerSet && c.failureHandler == nil {
		p.add("WithAckFailureHandler: the handler must not be nil")
	}
}

// topicNameProblem says what is wrong with a topic or group name (the broker's
// rule: [a-zA-Z0-9._-]{1,249}, not "." or ".."), or "" when it is fine.
func topicNameProblem(name string) string {
	if validName(name) {
		return ""
	}
	return "want [a-zA-Z0-9._-]{1,249}, not . or .."
}

// ackOption sets an option only the AckConsumer has.
type ackOption func(*ackConsumerConfig)

func (o ackOption) applyAckConsumer(c *ackConsumerConfig) { o(c) }

// WithAckMemberID gives the member a stable id (sent as the Receive stream's
// client_id). Its leases then outlive a broken stream until they expire, and
// the next stream with the same id takes them over; Close hands back (nacks)
// the records it received but never returned from Poll. Without it the broker
// makes an id per stream and hands that stream's leases back when it ends.
// Two consumers running at once with the same id push each other out: the
// older one ends, and its Poll returns the broker's ABORTED *BrokerError
// (errors.Is ErrMemberReplaced).
// WithClientID is another thing, a name for people that many clients may
// share; the Receive stream has no field for it, so the AckConsumer does not
// send it.
func WithAckMemberID(id string) AckConsumerOption {
	return ackOption(func(c *ackConsumerConfig) { c.memberID, c.memberIDSet = id, true })
}

// WithMaxOutstandingRecords is flow control: the most records leased to this
// consumer and not yet settled (default 1000). The broker stops sending at
// this limit and sends more as records are settled.
func WithMaxOutstandingRecords(n int64) AckConsumerOption {
	return ackOption(func(c *ackConsumerConfig) { c.maxOutstandingRecords = n })
}

// WithMaxOutstandingBytes is the same limit in record bytes (default 100 MiB;
// the broker always delivers at least one record, even a larger one).
func WithMaxOutstandingBytes(n int64) AckConsumerOption {
	return ackOption(func(c *ackConsumerConfig) { c.maxOutstandingBytes = n })
}

// WithAckMaxPollRecords is the most records one Poll returns (default 500).
func WithAckMaxPollRecords(n int) AckConsumerOption {
	return ackOption(func(c *ackConsumerConfig) { c.maxPollRecords = n })
}

// WithAckFlushInterval is how often buffered settles (acks, nacks, rejects,
// lease extensions) are sent together on the stream (default 100ms, at most
// 1m); 0 sends each one at once.
func WithAckFlushInterval(d time.Duration) AckConsumerOption {
	return ackOption(func(c *ackConsumerConfig) { c.flushInterval = d })
}

// WithAckMaxBatch sends the buffered settles at once, without waiting for the
// flush interval, as soon as this many are waiting (default 1000).
func WithAckMaxBatch(n int) AckConsumerOption {
	return ackOption(func(c *ackConsumerConfig) { c.maxBatch = n })
}

// WithAckFailureHandler is told about the settles sent in the background (on
// the stream, by the flush interval or WithAckMaxBatch) that the broker did
// not apply. It runs on the consumer's receiving goroutine: keep it short and
// do not call Close from it. Default: a warning on the WithLogger logger.
// Flush and Close return the refusals of what they send instead.
func WithAckFailureHandler(handler func(*SettleError)) AckConsumerOption {
	return ackOption(func(c *ackConsumerConfig) { c.failureHandler, c.failureHandlerSet = handler, true })
}
