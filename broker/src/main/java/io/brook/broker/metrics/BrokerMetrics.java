package io.brook.broker.metrics;

import io.brook.broker.core.ForwardRouteStatus;
import io.brook.broker.disk.DiskGuard;
import io.brook.broker.disk.DiskState;
import io.brook.broker.disk.DiskStats;
import io.brook.broker.groups.Group;
import io.brook.broker.groups.GroupManager;
import io.brook.broker.groups.GroupMode;
import io.brook.broker.groups.GroupView;
import io.brook.broker.outbound.OutboundMemory;
import io.brook.broker.topics.Partition;
import io.brook.broker.topics.Retention;
import io.brook.broker.topics.Topic;
import io.brook.broker.topics.TopicManager;
import io.brook.broker.topics.TopicTraffic;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * The broker's metrics: one registry per broker (never the global default, so two brokers in one
 * JVM do not clash). Nearly everything is a callback read at scrape time from counts the domain
 * keeps anyway (LongAdders on each topic, the retention and disk counters, group views); only the
 * RPC histogram and the rejection counter are updated as calls end, by {@link RpcMetrics}.
 */
public final class BrokerMetrics {
  public static final String CONTENT_TYPE = PrometheusTextFormatWriter.CONTENT_TYPE;

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
  private final RpcMetrics rpc;
  private final KafkaMetrics kafka;
  private final TopicManager topics;
  private final GroupManager groups;

  public BrokerMetrics(TopicManager topics, GroupManager groups, DiskGuard disk, Retention retention,
      IntSupplier connections, IntSupplier longCalls, OutboundMemory outbound,
      Supplier<List<ForwardRouteStatus>> forwardRoutes) {
    this.topics = topics;
    this.groups = groups;
    rpc = new RpcMetrics(registry);
    kafka = new KafkaMetrics(registry);
    traffic("brook_produced_records_total", "Records appended to a topic (idempotent retries that were "
        + "recognized as duplicates are not counted).", TopicTraffic::producedRecords);
    traffic("brook_produced_bytes_total", "Payload bytes (keys, values, headers) appended to a topic.",
        TopicTraffic::producedBytes);
    traffic("brook_fetched_records_total", "Records handed to consumers of a topic: fetch answers, tail "
        + "streams and ack-mode deliveries (redeliveries included).", TopicTraffic::fetchedRecords);
    traffic("brook_fetched_bytes_total", "Bytes handed to consumers of a topic: the payload of the records "
        + "counted by brook_fetched_records_total, and for raw-batch fetches (the Java consumer's) the stored "
        + "batches as sent.", TopicTraffic::fetchedBytes);
    partitionGauge("brook_partition_start_offset", "First offset still in the partition's log.",
        Partition::startOffset);
    partitionGauge("brook_partition_end_offset", "Offset the next record appended to the partition gets.",
        Partition::endOffset);
    partitionGauge("brook_partition_size_bytes", "Bytes of the partition's log: the batches written from its "
        + "first retained segment to its end (not the files' allocated size, which Chronicle grows in chunks).",
        Partition::sizeBytes);
    groupMetrics();
    counter("brook_retention_deleted_segments_total", "Segments retention deleted.", retention::segmentsDeleted);
    counter("brook_retention_deleted_records_total", "Records retention deleted.", retention::recordsDeleted);
    counter("brook_retention_deleted_bytes_total", "Bytes retention deleted.", retention::bytesDeleted);
    diskMetrics(disk);
    GaugeWithCallback.builder().name("brook_grpc_connections")
        .help("Open gRPC client connections.")
        .callback(cb -> cb.call(connections.getAsInt())).register(registry);
    GaugeWithCallback.builder().name("brook_grpc_long_calls")
        .help("Produce, tail and receive streams open and fetches waiting for records: the calls a "
            + "shutdown tells to reconnect.")
        .callback(cb -> cb.call(longCalls.getAsInt())).register(registry);
    outboundMetrics(outbound);
    ForwardMetrics.register(registry, forwardRoutes);
    JvmMetrics.builder().register(registry);
  }

  private void outboundMetrics(OutboundMemory outbound) {
    GaugeWithCallback.builder().name("brook_outbound_bytes")
        .help("Bytes of answers (gRPC and HTTP) handed to the network and not yet written to a socket.")
        .callback(cb -> cb.call(outbound.held())).register(registry);
    GaugeWithCallback.builder().name("brook_outbound_limit_bytes")
        .help("The broker-wide bound on brook_outbound_bytes (outbound.max.bytes); outbound.client.max.bytes "
            + "bounds each connection.")
        .callback(cb -> cb.call(outbound.limit())).register(registry);
    GaugeWithCallback.builder().name("brook_outbound_waiting_senders")
        .help("Answers and streams waiting for outbound memory now (their clients read slowly or not at all).")
        .callback(cb -> cb.call(outbound.waiting())).register(registry);
    counter("brook_outbound_waits_total", "Times an answer or a stream message had to wait for outbound memory.",
        outbound::waits);
  }

  /** The interceptor that times calls and counts rejections; the gRPC server installs it. */
  public RpcMetrics rpc() {
    return rpc;
  }

  /** Writes the text exposition format 0.0.4. */
  /** What the Kafka listener reports. */
  public KafkaMetrics kafka() {
    return kafka;
  }

  public void scrape(OutputStream out) throws IOException {
    writer.write(out, registry.scrape());
  }

  private void traffic(String name, String help, ToLongFunction<TopicTraffic> value) {
    CounterWithCallback.builder().name(name).help(help).labelNames("topic")
        .callback(cb -> {
          for (Topic t : topics.list()) {
            cb.call(value.applyAsLong(t.traffic()), t.name());
          }
        }).register(registry);
  }

  private void partitionGauge(String name, String help, ToLongFunction<Partition> value) {
    GaugeWithCallback.builder().name(name).help(help).labelNames("topic", "partition")
        .callback(cb -> {
          for (Partition p : topics.allPartitions()) {
            cb.call(value.applyAsLong(p), p.topic().name(), Integer.toString(p.index()));
          }
        }).register(registry);
  }

  private void counter(String name, String help, LongSupplier value) {
    CounterWithCallback.builder().name(name).help(help).callback(cb -> cb.call(value.getAsLong()))
        .register(registry);
  }

  /**
   * Per group and topic (partitions summed, so series grow with topics, not partitions): lag of
   * offset groups, unsettled records, redeliveries and dead letters of ack groups.
   */
  private void groupMetrics() {
    GaugeWithCallback.builder().name("brook_group_members")
        .help("Members of each group, with how they consume (type: brook, classic, consumer, ack, none).")
        .labelNames("group", "type")
        .callback(cb -> {
          for (Group g : groups.list()) {
            synchronized (g) { // the count and the type of one moment
              cb.call(g.memberCount(), g.name(), GroupView.typeOf(g.mode(), g.protocol()));
            }
          }
        }).register(registry);
    GaugeWithCallback.builder().name("brook_group_lag_records")
        .help("Offset groups: records between the committed offset and the end of the log, summed over the "
            + "topic's partitions that have a committed offset.")
        .labelNames("group", "topic")
        .callback(cb -> perGroupTopic(GroupMode.OFFSET, pv -> pv.committed() < 0 ? -1
            : Math.max(0, pv.end() - Math.max(pv.committed(), pv.logStart()))).forEach(cb::call)).register(registry);
    GaugeWithCallback.builder().name("brook_group_unsettled_records")
        .help("Ack groups: records delivered or waiting to be delivered again and not yet acked, summed over "
            + "the topic's partitions.")
        .labelNames("group", "topic")
        .callback(cb -> perGroupTopic(GroupMode.ACK, GroupView.PartitionView::unsettled).forEach(cb::call))
        .register(registry);
    CounterWithCallback.builder().name("brook_group_redeliveries_total")
        .help("Ack groups: records delivered again after a nack or an expired lease.")
        .labelNames("group", "topic")
        .callback(cb -> perGroupTopic(GroupMode.ACK, GroupView.PartitionView::redeliveries).forEach(cb::call))
        .register(registry);
    CounterWithCallback.builder().name("brook_group_dead_lettered_total")
        .help("Ack groups: records sent to the group's dead-letter topic (rejected or out of attempts).")
        .labelNames("group", "topic")
        .callback(cb -> perGroupTopic(GroupMode.ACK, GroupView.PartitionView::deadLettered).forEach(cb::call))
        .register(registry);
  }

  /** A callback's call: (value, group, topic). */
  private interface Sample {
    void call(double value, String... labels);
  }

  private record Sums(Map<List<String>, Long> sums) {
    void forEach(Sample cb) {
      sums.forEach((labels, v) -> cb.call(v, labels.toArray(String[]::new)));
    }
  }

  /** Sums a value over each group's partitions per topic; a partition's value below 0 counts as 0. */
  private Sums perGroupTopic(GroupMode mode, ToLongFunction<GroupView.PartitionView> value) {
    Map<List<String>, Long> sums = new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
    for (Group g : groups.list()) {
      if (g.mode() != mode) {
        continue;
      }
      for (GroupView.PartitionView pv : g.describe().partitions()) {
        long v = value.applyAsLong(pv);
        List<String> key = List.of(g.name(), pv.tp().topic());
        sums.merge(key, Math.max(v, 0), Long::sum);
      }
    }
    return new Sums(sums);
  }

  private void diskMetrics(DiskGuard disk) {
    GaugeWithCallback.builder().name("brook_disk_free_bytes")
        .help("Free bytes of the data directory's filesystem as the disk guard last saw them.")
        .callback(cb -> cb.call(disk.stats().freeBytes())).register(registry);
    GaugeWithCallback.builder().name("brook_disk_produce_threshold_bytes")
        .help("Below this much free space produce is refused.")
        .callback(cb -> cb.call(disk.stats().produceThresholdBytes())).register(registry);
    GaugeWithCallback.builder().name("brook_disk_state")
        .help("The disk guard's state: 1 for the current one (OK, PRODUCE_REFUSED, FULL), 0 for the others.")
        .labelNames("state")
        .callback(cb -> {
          DiskState now = disk.state();
          for (DiskState s : DiskState.values()) {
            cb.call(s == now ? 1 : 0, s.name());
          }
        }).register(registry);
    CounterWithCallback.builder().name("brook_disk_refused_writes_total")
        .help("Writes the disk guard refused for lack of space, by kind of write.")
        .labelNames("kind")
        .callback(cb -> {
          DiskStats stats = disk.stats();
          for (Map.Entry<String, Long> e : stats.refused().entrySet()) {
            cb.call(e.getValue(), e.getKey());
          }
        }).register(registry);
  }
}
