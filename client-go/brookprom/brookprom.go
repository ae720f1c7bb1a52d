// Package brookprom exposes the Brook Go client's counters (Producer.Stats,
// Consumer.Stats, AckConsumer.Stats) as Prometheus collectors. It reads them
// at each scrape, so nothing is counted twice. Metric names are the ones the
// Java client's Micrometer binder gives on a Prometheus registry, so one
// dashboard serves both clients.
//
//	reg.MustRegister(brookprom.NewProducerCollector(producer, prometheus.Labels{"app": "orders"}))
package brookprom

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/brook-io/brook/client-go/brook"
)

// metric is one series family: its description and how to read it from a snapshot.
type metric[S any] struct {
	desc *prometheus.Desc
	kind prometheus.ValueType
	read func(S) float64
}

func counter[S any](name, help string, labels prometheus.Labels, read func(S) int64) metric[S] {
	return metric[S]{prometheus.NewDesc(name, help, nil, labels), prometheus.CounterValue,
		func(s S) float64 { return float64(read(s)) }}
}

func gauge[S any](name, help string, labels prometheus.Labels, read func(S) int64) metric[S] {
	return metric[S]{prometheus.NewDesc(name, help, nil, labels), prometheus.GaugeValue,
		func(s S) float64 { return float64(read(s)) }}
}

// collector reads one snapshot per scrape and sends its plain metrics, then
// what extra sends (labelled series and summaries).
type collector[S any] struct {
	stats   func() S
	metrics []metric[S]
	descs   []*prometheus.Desc // of extra
	extra   func(S, chan<- prometheus.Metric)
}

func (c *collector[S]) Describe(ch chan<- *prometheus.Desc) {
	for _, m := range c.metrics {
		ch <- m.desc
	}
	for _, d := range c.descs {
		ch <- d
	}
}

func (c *collector[S]) Collect(ch chan<- prometheus.Metric) {
	s := c.stats()
	for _, m := range c.metrics {
		ch <- prometheus.MustNewConstMetric(m.desc, m.kind, m.read(s))
	}
	if c.extra != nil {
		c.extra(s, ch)
	}
}

// NewProducerCollector collects p's counters as brook_producer_*; labels
// (which may be nil) are added to every series, to tell producers apart.
func NewProducerCollector(p *brook.Producer, labels prometheus.Labels) prometheus.Collector {
	type S = brook.ProducerStats
	errs := prometheus.NewDesc("brook_producer_errors_total", "Records that failed, by the error's reason.",
		[]string{"reason"}, labels)
	latency := prometheus.NewDesc("brook_producer_request_latency_seconds",
		"Time from sending a produce request to its answer.", nil, labels)
	return &collector[S]{
		stats: p.Stats,
		metrics: []metric[S]{
			counter("brook_producer_sent_records_total", "Records the broker acknowledged as written.", labels,
				func(s S) int64 { return s.RecordsSent }),
			counter("brook_producer_sent_bytes_total", "Bytes of the records acknowledged.", labels,
				func(s S) int64 { return s.BytesSent }),
			counter("brook_producer_sent_batches_total", "Batches acknowledged (sent bytes / sent batches: the average batch).",
				labels, func(s S) int64 { return s.BatchesSent }),
			counter("brook_producer_retries_total", "Batches sent again after a retriable failure.", labels,
				func(s S) int64 { return s.Retries }),
			gauge("brook_producer_buffer_used_bytes", "Bytes of the buffer held by records not yet answered.", labels,
				func(s S) int64 { return s.BufferedBytes }),
			gauge("brook_producer_buffer_total_bytes", "The buffer's size (WithMaxBufferedBytes).", labels,
				func(s S) int64 { return s.BufferLimitBytes }),
			gauge("brook_producer_requests_in_flight", "Produce requests sent and not yet answered.", labels,
				func(s S) int64 { return s.RequestsInFlight }),
		},
		descs: []*prometheus.Desc{errs, latency},
		extra: func(s S, ch chan<- prometheus.Metric) {
			for reason, n := range s.Errors {
				ch <- prometheus.MustNewConstMetric(errs, prometheus.CounterValue, float64(n), reason)
			}
			ch <- prometheus.MustNewConstSummary(latency, uint64(s.Requests), s.RequestLatency.Seconds(), nil)
		},
	}
}

// NewConsumerCollector collects c's counters as brook_consumer_*, with the lag
// of each assigned partition as brook_consumer_lag{topic,partition}.
func NewConsumerCollector(c *brook.Consumer, labels prometheus.Labels) prometheus.Collector {
	type S = brook.ConsumerStats
	lag := prometheus.NewDesc("brook_consumer_lag",
		"End offset minus position of an assigned partition, as the last fetch saw it.",
		[]string{"topic", "partition"}, labels)
	lagMax := prometheus.NewDesc("brook_consumer_lag_max", "The largest lag of the assigned partitions.", nil, labels)
	latency := prometheus.NewDesc("brook_consumer_commit_latency_seconds", "Time from sending a commit to its answer.",
		nil, labels)
	return &collector[S]{
		stats: c.Stats,
		metrics: []metric[S]{
			counter("brook_consumer_fetched_records_total", "Records the fetch answers held from the positions on.",
				labels, func(s S) int64 { return s.RecordsFetched }),
			counter("brook_consumer_fetched_bytes_total", "Encoded bytes of the records fetched.", labels,
				func(s S) int64 { return s.BytesFetched }),
			counter("brook_consumer_fetches_total", "Fetch answers received.", labels,
				func(s S) int64 { return s.Fetches }),
			counter("brook_consumer_rebalances_total", "Joins of the group completed.", labels,
				func(s S) int64 { return s.Rebalances }),
			counter("brook_consumer_commit_failures_total", "Commits refused or failed.", labels,
				func(s S) int64 { return s.CommitFailures }),
		},
		descs: []*prometheus.Desc{lag, lagMax, latency},
		extra: func(s S, ch chan<- prometheus.Metric) {
			var most int64
			for tp, n := range s.Lag {
				most = max(most, n)
				ch <- prometheus.MustNewConstMetric(lag, prometheus.GaugeValue, float64(n), tp.Topic,
					strconv.Itoa(int(tp.Partition)))
			}
			ch <- prometheus.MustNewConstMetric(lagMax, prometheus.GaugeValue, float64(most))
			ch <- prometheus.MustNewConstSummary(latency, uint64(s.Commits), s.CommitLatency.Seconds(), nil)
		},
	}
}

// NewAckConsumerCollector collects c's counters (AckConsumer.Stats) as brook_ack_consumer_*.
func NewAckConsumerCollector(c *brook.AckConsumer, labels prometheus.Labels) prometheus.Collector {
	type S = brook.AckStats
	return &collector[S]{
		stats: c.Stats,
		metrics: []metric[S]{
			counter("brook_ack_consumer_received_records_total", "Deliveries received.", labels,
				func(s S) int64 { return s.ReceivedRecords }),
			counter("brook_ack_consumer_redelivered_records_total", "Deliveries with an attempt count above 1.", labels,
				func(s S) int64 { return s.RedeliveredRecords }),
			counter("brook_ack_consumer_settles_queued_total", "Acks, nacks, rejects and lease extensions asked for.",
				labels, func(s S) int64 { return s.SettlesQueued }),
			counter("brook_ack_consumer_settle_messages_total", "Stream messages that carried settles.", labels,
				func(s S) int64 { return s.SettleMessages }),
			counter("brook_ack_consumer_settle_calls_total", "Unary Settle calls (Flush, Close).", labels,
				func(s S) int64 { return s.SettleCalls }),
			counter("brook_ack_consumer_settle_failures_total", "Settle failures the broker reported.", labels,
				func(s S) int64 { return s.SettleFailures }),
			counter("brook_ack_consumer_reconnects_total", "Streams opened again after one broke.", labels,
				func(s S) int64 { return s.Reconnects }),
		},
	}
}
