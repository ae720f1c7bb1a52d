package brook

import (
	"context"
	"time"
)

// Defaults of NewConsumer's options (Kafka's consumer defaults where Kafka has the option).
const (
	consumerDefaultSessionTimeout     = 45 * time.Second
	consumerDefaultRebalanceTimeout   = 5 * time.Minute
	consumerDefaultAutoCommitInterval = 5 * time.Second
	consumerDefaultMaxPollRecords     = 500
	consumerDefaultFetchMaxBytes      = 1 << 20
	consumerDefaultFetchMaxWait       = 500 * time.Millisecond
	consumerDefaultRequestTimeout     = 30 * time.Second
	consumerDefaultBackoffMin         = 50 * time.Millisecond
	consumerDefaultBackoffMax         = time.Second

	consumerMaxPollRecordsLimit = 100_000
	consumerMaxFetchBytesLimit  = 32 << 20
)

// consumerConfig is NewConsumer's configuration.
type consumerConfig struct {
	conn   connConfig
	group  string
	topics []string

	sessionTimeout     time.Duration
	rebalanceTimeout   time.Duration
	reset              Position
	autoCommit         *bool // nil: on with a group, off without one
	autoCommitInterval time.Duration
	maxPollRecords     int
	fetchMaxBytes      int
	fetchMaxWait       time.Duration
	requestTimeout     time.Duration
	backoffMin         time.Duration
	backoffMax         time.Duration
	onAssigned         func(context.Context, []TopicPartition)
	onRevoked          func(context.Context, []TopicPartition)
	onLost             func(context.Context, []TopicPartition)
	nilOptions         int
	// topicPattern: WithTopicPattern's regex, sent instead of topics ("" for none).
	topicPattern      string
	rebalanceProtocol RebalanceProtocol
	instanceID        string // "": a dynamic member
}

func consumerDefaultConfig() consumerConfig {
	return consumerConfig{
		conn:               defaultConnConfig(),
		sessionTimeout:     consumerDefaultSessionTimeout,
		rebalanceTimeout:   consumerDefaultRebalanceTimeout,
		reset:              Latest,
		autoCommitInterval: consumerDefaultAutoCommitInterval,
		maxPollRecords:     consumerDefaultMaxPollRecords,
		fetchMaxBytes:      consumerDefaultFetchMaxBytes,
		fetchMaxWait:       consumerDefaultFetchMaxWait,
		requestTimeout:     consumerDefaultRequestTimeout,
		backoffMin:         consumerDefaultBackoffMin,
		backoffMax:         consumerDefaultBackoffMax,
	}
}

// validate checks every option at once; the error is a *ConfigError naming each problem.
func (c *consumerConfig) validate() error {
	var p problems
	c.conn.validate(&p)
	if c.nilOptions > 0 {
		p.add("%d nil option(s) given", c.nilOptions)
	}
	if c.group != "" && !validName(c.group) {
		p.add("WithGroup(%q): must match [a-zA-Z0-9._-]{1,249} (and not be . or ..)", c.group)
	}
	if len(c.topics) > 0 && c.group == "" {
		p.add("WithTopics needs WithGroup (without a group, read partitions with Assign)")
	}
	if c.topicPattern != "" {
		if len(c.topics) > 0 {
			p.add("WithTopicPattern(%q) and WithTopics: set one, not both", c.topicPattern)
		}
		if c.group == "" {
			p.add("WithTopicPattern needs WithGroup")
		}
	}
	for _, t := range c.topics {
		if !validName(t) {
			p.add("WithTopics(%q): must match [a-zA-Z0-9._-]{1,249} (and not be . or ..)", t)
		}
	}
	p.duration("WithSessionTimeout", c.sessionTimeout, time.Millisecond, maxDuration)
	p.duration("WithRebalanceTimeout", c.rebalanceTimeout, time.Millisecond, maxDuration)
	if c.reset != Earliest && c.reset != Latest {
		p.add("WithResetPosition(%v): must be Earliest or Latest", c.reset)
	}
	if c.autoCommit != nil && *c.autoCommit && c.group == "" {
		p.add("WithAutoCommit(true) needs WithGroup")
	}
	p.duration("WithAutoCommitInterval", c.autoCommitInterval, time.Millisecond, maxDuration)
	if c.maxPollRecords < 1 || c.maxPollRecords > consumerMaxPollRecordsLimit {
		p.add("WithMaxPollRecords(%d): must be in [1, %d]", c.maxPollRecords, consumerMaxPollRecordsLimit)
	}
	if c.fetchMaxBytes < 1 || c.fetchMaxBytes > consumerMaxFetchBytesLimit {
		p.add("WithFetchMaxBytes(%d): must be in [1, %d]", c.fetchMaxBytes, consumerMaxFetchBytesLimit)
	}
	p.duration("WithRequestTimeout", c.requestTimeout, time.Millisecond, maxDuration)
	switch {
	case c.fetchMaxWait < 0 || c.fetchMaxWait > maxDuration:
		p.add("WithFetchMaxWait(%v): must be in [0, %v]", c.fetchMaxWait, maxDuration)
	case c.fetchMaxWait >= c.requestTimeout:
		p.add("WithFetchMaxWait(%v): must be below WithRequestTimeout (%v)", c.fetchMaxWait, c.requestTimeout)
	}
	retryBackoffProblems(&p, c.backoffMin, c.backoffMax)
	if c.rebalanceProtocol != RebalanceEager && c.rebalanceProtocol != RebalanceCooperative {
		p.add("WithRebalanceProtocol(%d): must be RebalanceEager or RebalanceCooperative", c.rebalanceProtocol)
	}
	if c.instanceID != "" && !validName(c.instanceID) {
		p.add("WithGroupInstanceID(%q): must match [a-zA-Z0-9._-]{1,249} (and not be . or ..)", c.instanceID)
	}
	if c.instanceID != "" && c.group == "" {
		p.add("WithGroupInstanceID needs WithGroup")
	}
	return p.err("consumer")
}

// autoCommitOn is whether positions are committed inside Poll, before a revoke and on Close.
func (c *consumerConfig) autoCommitOn() bool {
	if c.autoCommit != nil {
		return *c.autoCommit
	}
	return c.group != ""
}
