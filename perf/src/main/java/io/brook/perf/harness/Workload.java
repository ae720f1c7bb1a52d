package io.brook.perf.harness;

import io.brook.perf.harness.SystemClient.ClientSettings;
import java.util.List;

/**
 * One workload definition, run the same way on every system it names. {@code systems.get(0)} is the
 * subject (Brook); every other system gets a ratio column, {@code peer} is the one the goals are taken
 * against (none, one, or several: a throughput and a CPU goal).
 */
record Workload(String name, String title, Kind kind, List<String> systems, String peer, int recordSize,
    long records, int partitions, int producers, int consumers, int rate, int seconds, long bytes,
    ClientSettings settings, List<Goal> goals, List<Metric> metrics, int timeoutSeconds) {

  enum Kind {
    /** Producers send as fast as they can; send → answer latency per record. */
    PRODUCE(true),
    /** One consumer reads a prefilled topic from the start. */
    CONSUME(true),
    /** One producer paced at a fixed rate, one consumer; produce → consume latency per record. */
    END_TO_END(true),
    /** Consumers of one queue-semantics group receive and ack every record of a prefilled topic. */
    ACK(true),
    /** Producers each send one durable record at a time, for a fixed time. */
    SYNCED(true),
    /** A broker on an empty data directory: process start to serving clients. */
    START_EMPTY(false),
    /** A broker on a data directory holding {@code bytes} of records: process start to serving. */
    START_FULL(false),
    /** A fresh broker holding {@code partitions} partitions, each written once: its resident memory. */
    PARTITIONS(false),
    /** Kafka's own producer benchmark (org.apache.kafka.tools.ProducerPerformance), a process of its own. */
    PRODUCER_PERF(true),
    /** Consumers in one Kafka consumer group (subscribe) read a prefilled topic. */
    GROUP_CONSUME(true),
    /** Kafka's own consumer benchmark (org.apache.kafka.tools.ConsumerPerformance, subscribed), a process of its own. */
    CONSUMER_PERF(true),
    /** A Kafka consumer group of {@code consumers - 1} members gets one more: the time to rebalance, {@code seconds} rounds. */
    REBALANCE(true),
    /** A prefilled topic copied into Kafka: Brook's forward route, or a kafka-clients consumer -> producer loop. */
    FORWARD(true);

    /** Whether a scaled-down pass warms the JIT first (process start is what the others measure). */
    final boolean warmable;

    Kind(boolean warmable) {
      this.warmable = warmable;
    }
  }

  record Metric(String key, String label, String better) {}

  /** Met when the subject/peer ratio of {@code metric} is at least (higher) or at most (lower) ratio. */
  record Goal(String metric, double ratio, String text) {}

  /** The same workload at a fraction of its size, for the warm-up pass. */
  Workload warmup(double fraction) {
    return new Workload(name + "-warmup", title, kind, systems, peer, recordSize,
        Math.max(1000, (long) (records * fraction)), partitions, producers, consumers, rate,
        Math.max(1, (int) Math.ceil(seconds * fraction)), bytes, settings, goals, metrics, timeoutSeconds);
  }

  static final Metric RECORDS_PER_S = new Metric("records_per_s", "records/s", "higher");
  static final Metric MB_PER_S = new Metric("mb_per_s", "MB/s", "higher");
  static final Metric P50 = new Metric("p50_ms", "p50 ms", "lower");
  static final Metric P99 = new Metric("p99_ms", "p99 ms", "lower");
  static final Metric P999 = new Metric("p999_ms", "p99.9 ms", "lower");
  static final Metric MAX = new Metric("max_ms", "max ms", "lower");
  static final Metric BROKER_CPU = new Metric("broker_cpu_s", "broker CPU s", "lower");
  /** broker_cpu_s over the workload's records: what one record costs the broker, in microseconds. */
  static final Metric CPU_PER_RECORD = new Metric("broker_cpu_us_per_record", "broker CPU µs/record", "lower");
  static final Metric REBALANCE_MS = new Metric("rebalance_ms", "rebalance ms", "lower");
  static final Metric READY = new Metric("ready_ms", "start to ready ms", "lower");
  static final Metric RSS = new Metric("rss_mib", "RSS MiB", "lower");
}
