package brook

import "log/slog"

// WithLogger is where a client reports what it does not return as an error,
// one line per event (never per record): the producer when its stream to the
// broker breaks, when it cannot reach the broker and when the broker answers
// again, and when it refuses a request for good; the consumer when a poll or
// an auto commit fails, partitions are lost or a position is reset; the ack
// consumer when its stream ends and comes back, and settles the broker
// refused in the background (unless WithAckFailureHandler takes them); the
// admin when Close cancels calls still under way. Retries are logged at
// Debug. Every client takes it; default slog.Default() (Info and above, on
// standard error unless the program set another default).
func WithLogger(l *slog.Logger) Option {
	return connOption(func(c *connConfig) { c.logger = l })
}

// log is the ack consumer's logger (WithLogger).
func (c *AckConsumer) log() *slog.Logger { return c.cfg.conn.logger }
