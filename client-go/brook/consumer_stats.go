package brook

import (
	"sync/atomic"
	"time"
)

// ConsumerStats are a Consumer's counters since it was made (Consumer.Stats).
type ConsumerStats struct {
	// RecordsFetched counts the records the fetch answers held from the
	// positions on; BytesFetched their encoded size as the broker sent them.
	// Fetches counts the fetch answers.
	RecordsFetched, BytesFetched, Fetches int64
	// Rebalances counts the joins of the group completed (the first
	// assignment counts: each is a rebalance this member took part in).
	Rebalances int64
	// Commits counts the commit calls answered (sync, each attempt, and
	// async), CommitFailures those refused or failed; CommitLatency adds up
	// the time from sending each to its answer.
	Commits, CommitFailures int64
	CommitLatency           time.Duration
	// Lag is, per assigned partition whose end a fetch answer told, its end
	// offset minus the position (as Consumer.Lag).
	Lag map[TopicPartition]int64
}

// consumerCounters are what ConsumerStats reads; the lag comes from the partitions' state.
type consumerCounters struct {
	recordsFetched, bytesFetched, fetches, rebalances atomic.Int64
	commits, commitFailures, commitNanos              atomic.Int64
}

// fetched counts one fetch answer's records, once per answer rather than per record.
func (c *consumerCounters) fetched(records, bytes int) {
	c.recordsFetched.Add(int64(records))
	c.bytesFetched.Add(int64(bytes))
}

func (c *consumerCounters) committed(start time.Time, err error) {
	c.commitNanos.Add(int64(time.Since(start)))
	c.commits.Add(1)
	if err != nil {
		c.commitFailures.Add(1)
	}
}

// Stats returns the consumer's counters now. Safe to call at any time, from
// any goroutine, also while Poll runs.
func (c *Consumer) Stats() ConsumerStats {
	s := ConsumerStats{
		RecordsFetched: c.stats.recordsFetched.Load(),
		BytesFetched:   c.stats.bytesFetched.Load(),
		Fetches:        c.stats.fetches.Load(),
		Rebalances:     c.stats.rebalances.Load(),
		Commits:        c.stats.commits.Load(),
		CommitFailures: c.stats.commitFailures.Load(),
		CommitLatency:  time.Duration(c.stats.commitNanos.Load()),
		Lag:            map[TopicPartition]int64{},
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, tp := range c.parts.assigned() {
		if st := c.parts.get(tp); st != nil && st.known && st.endKnown {
			s.Lag[tp] = max(0, st.end-st.position)
		}
	}
	return s
}
