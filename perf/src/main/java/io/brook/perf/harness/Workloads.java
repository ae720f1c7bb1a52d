package io.brook.perf.harness;

import static io.brook.perf.harness.Workload.BROKER_CPU;
import static io.brook.perf.harness.Workload.CPU_PER_RECORD;
import static io.brook.perf.harness.Workload.MAX;
import static io.brook.perf.harness.Workload.MB_PER_S;
import static io.brook.perf.harness.Workload.P50;
import static io.brook.perf.harness.Workload.P99;
import static io.brook.perf.harness.Workload.P999;
import static io.brook.perf.harness.Workload.READY;
import static io.brook.perf.harness.Workload.REBALANCE_MS;
import static io.brook.perf.harness.Workload.RECORDS_PER_S;
import static io.brook.perf.harness.Workload.RSS;

import io.brook.perf.harness.SystemClient.ClientSettings;
import io.brook.perf.harness.Workload.Goal;
import io.brook.perf.harness.Workload.Kind;
import io.brook.perf.harness.Workload.Metric;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The workloads of SPEC §10, issue 11 and issue 25 (the Kafka protocol), at full size or at smoke size (seconds: proves the harness
 * drives both systems, measures nothing worth quoting). One definition per workload; the sizes are
 * the only difference between the modes.
 */
final class Workloads {
  private static final List<String> BROOK_KAFKA = List.of("brook", "kafka");
  /** Brook's broker through its Kafka listener, and Kafka: the same kafka-clients code on both. */
  private static final List<String> BROOK_KAFKA_PROTOCOL = List.of("brook-kafka", "kafka");
  /**
   * What ProducerPerformance runs with when given only a bootstrap address: kafka-clients 4.3.1's
   * producer defaults (batch.size 16384, linger.ms 5; acks=all and idempotence as in every workload).
   */
  private static final ClientSettings PRODUCER_PERF_DEFAULTS = new ClientSettings(16_384, 5, false, 0, 0, Map.of());
  private static final List<Metric> THROUGHPUT = List.of(RECORDS_PER_S, MB_PER_S, P50, P99, P999, MAX, BROKER_CPU);
  private static final List<Metric> LATENCY = List.of(P99, P50, P999, MAX, RECORDS_PER_S);

  private Workloads() {}

  static List<Workload> all(boolean smoke) {
    ClientSettings s = ClientSettings.defaults();
    List<Workload> w = new ArrayList<>();
    // Full size: several seconds per run at the rates seen here, so that a run is not mostly ramp-up.
    long small = smoke ? 20_000 : 10_000_000;
    long large = smoke ? 5_000 : 2_000_000;
    int timeout = smoke ? 60 : 300;
    for (int producers : new int[] {1, 4}) {
      w.add(new Workload("produce-100B-" + producers + "p", "Produce at the maximum rate, 100 B records, "
          + producers + " producer" + (producers > 1 ? "s" : ""), Kind.PRODUCE, BROOK_KAFKA, "kafka", 100, small, 4,
          producers, 0, 0, 0, 0, s, List.of(new Goal("records_per_s", 3.0, "produce >= 3x Kafka")), THROUGHPUT,
          timeout));
      w.add(new Workload("produce-1KiB-" + producers + "p", "Produce at the maximum rate, 1 KiB records, "
          + producers + " producer" + (producers > 1 ? "s" : ""), Kind.PRODUCE, BROOK_KAFKA, "kafka", 1024, large, 4,
          producers, 0, 0, 0, 0, s, List.of(new Goal("records_per_s", 3.0, "produce >= 3x Kafka")), THROUGHPUT,
          timeout));
    }
    w.add(new Workload("consume-100B", "Consume from the earliest offset, 100 B records, 1 consumer", Kind.CONSUME,
        BROOK_KAFKA, "kafka", 100, small, 4, 1, 1, 0, 0, 0, s,
        List.of(new Goal("records_per_s", 1.0, "consume >= 1x Kafka")),
        List.of(RECORDS_PER_S, MB_PER_S, BROKER_CPU), timeout));
    w.add(new Workload("consume-1KiB", "Consume from the earliest offset, 1 KiB records, 1 consumer", Kind.CONSUME,
        BROOK_KAFKA, "kafka", 1024, large, 4, 1, 1, 0, 0, 0, s,
        List.of(new Goal("records_per_s", 1.0, "consume >= 1x Kafka")),
        List.of(RECORDS_PER_S, MB_PER_S, BROKER_CPU), timeout));
    int rate = smoke ? 2_000 : 10_000;
    int e2eSeconds = smoke ? 3 : 30;
    w.add(new Workload("e2e-latency", "End-to-end latency at " + rate + " records/s, 100 B, produce -> consume",
        Kind.END_TO_END, BROOK_KAFKA, "kafka", 100, (long) rate * e2eSeconds, 4, 1, 1, rate, e2eSeconds, 0,
        s.linger(0), List.of(new Goal("p99_ms", 0.5, "end-to-end p99 <= 0.5x Kafka")), LATENCY, timeout));
    w.add(new Workload("ack-4-consumers", "Ack mode: 4 consumers receive and ack each 1 KiB record "
        + "(Brook ack group vs Kafka share group)", Kind.ACK, BROOK_KAFKA, "kafka", 1024, smoke ? 5_000 : 1_000_000,
        4, 1, 4, 0, 0, 0, s, List.of(new Goal("records_per_s", 3.0, "ack mode >= 3x Kafka share groups")),
        List.of(RECORDS_PER_S, MB_PER_S, new Metric("redelivered", "redelivered", "lower"), BROKER_CPU), timeout));
    w.add(new Workload("synced-16p", "Durable produce: 16 producers, one 100 B record per request, forced to disk",
        Kind.SYNCED, List.of("brook", "brook-no-group-commit", "kafka-flush"), "brook-no-group-commit", 100, 0, 1, 16,
        0, 0, smoke ? 2 : 10, 0, s.linger(0).synced(true),
        List.of(new Goal("records_per_s", 10.0, "SYNCED with group commit >= 10x one force per request")),
        List.of(RECORDS_PER_S, P50, P99, MAX, BROKER_CPU), timeout));
    w.add(new Workload("start-empty", "Start to ready, empty data directory", Kind.START_EMPTY, BROOK_KAFKA, "kafka",
        0, 0, 0, 0, 0, 0, 0, 0, s, List.of(), List.of(READY, RSS), timeout));
    long full = smoke ? 20L << 20 : 10L << 30;
    w.add(new Workload("start-" + (smoke ? "20MiB" : "10GiB"), "Start to ready, " + (smoke ? "20 MiB" : "10 GiB")
        + " of 1 KiB records in 4 partitions", Kind.START_FULL, BROOK_KAFKA, "kafka", 1024, full / 1024, 4, 4, 0, 0, 0,
        full, s, List.of(), List.of(READY, RSS), smoke ? 120 : 1800));
    int parts = smoke ? 100 : 1000;
    w.add(new Workload("partitions-" + parts, parts + " partitions, one record each: resident memory",
        Kind.PARTITIONS, BROOK_KAFKA, "kafka", 100, parts, parts, 1, 0, 0, 0, 0, s, List.of(),
        List.of(RSS, new Metric("rss_idle_mib", "RSS before MiB", "lower"),
            new Metric("create_s", "create s", "lower")), timeout));
    w.addAll(kafkaProtocol(smoke, s, timeout));
    w.addAll(kafkaGroups(smoke, s, timeout));
    w.add(forward(smoke, s, timeout));
    return w;
  }

  /**
   * Whether the consumer-group workloads run only when --workloads names them. True until Brook's Kafka
   * door serves consumer groups (issue 26), KIP-848's ConsumerGroupHeartbeat included (the -consumer
   * rebalance workload): a run of every workload (harness-smoke in make test) would fail on brook-kafka
   * before. The one switch to turn them into the default run.
   */
  static final boolean GROUPS_ON_REQUEST = true;

  /**
   * Issue 28: Brook's forward route against a kafka-clients consumer -> producer loop, both copying the
   * same prefilled records (about 100 B values, a key, three headers) into a topic of the shared Kafka 4.3.1
   * (ForwardRuns). Sized for runs of several seconds at the rates of a 2-core VM.
   */
  static Workload forward(boolean smoke, ClientSettings s, int timeout) {
    return new Workload("forward-100B", "Forward a prefilled topic into Kafka: Brook's route (brook-forward) vs a "
        + "kafka-clients consumer -> producer loop Kafka -> Kafka (acks=all, idempotent)", Kind.FORWARD,
        List.of("brook-forward", "kafka-loop"), "kafka-loop", 100, smoke ? 5_000 : 1_000_000, 4, 1, 1, 0, 0, 0, s,
        List.of(new Goal("records_per_s", 1.0, "forwarding >= 1x a consumer -> producer loop")),
        List.of(RECORDS_PER_S, new Metric("cpu_us_per_record", "CPU µs/record, all processes", "lower"),
            new Metric("forwarder_cpu_us_per_record", "Brook or loop CPU µs/record", "lower"),
            new Metric("kafka_cpu_us_per_record", "Kafka CPU µs/record", "lower"), MB_PER_S,
            new Metric("drain_s", "drain s", "lower"),
            new Metric("broker_cpu_s", "brokers' CPU s (Brook + Kafka | Kafka)", "lower")), timeout);
  }

  /**
   * Whether the forward workload runs only when --workloads names it (true while Brook had no forwarder:
   * the default run, harness-smoke in make test, would have failed on brook-forward).
   */
  static final boolean FORWARD_ON_REQUEST = false;

  /** A consumer-group workload (issue 26). */
  static boolean isGroup(Workload w) {
    return switch (w.kind()) {
      case GROUP_CONSUME, CONSUMER_PERF, REBALANCE -> true;
      default -> false;
    };
  }

  /**
   * Issue 26: Kafka consumer groups on Brook's Kafka listener and on Kafka, the same kafka-clients code, with
   * the classic protocol (kafka-clients' default, the eager range assignor first) and with KIP-848
   * (group.protocol=consumer, the broker's assignor; "-consumer" in the name): 3 members of one group read
   * a prefilled 6-partition topic (2 partitions each once settled); Kafka's ConsumerPerformance, one
   * subscribed member; and the rebalance time of a third member's join. Both brokers run with
   * group.initial.rebalance.delay.ms 0 (Kafka's default is 3000). Reported, no goal. The classic ones keep
   * the names they had before the KIP-848 ones came (kafka-group-consume-1KiB, ...).
   */
  static List<Workload> kafkaGroups(boolean smoke, ClientSettings s, int timeout) {
    List<Workload> w = new ArrayList<>();
    long records = smoke ? 5_000 : 2_000_000;
    int rounds = smoke ? 1 : 3;
    List<Metric> consume = List.of(RECORDS_PER_S, new Metric("joined_records_per_s", "records/s from subscribe",
        "higher"), CPU_PER_RECORD, MB_PER_S, new Metric("read_again", "read again", "lower"), BROKER_CPU);
    List<Metric> rebalance = List.of(REBALANCE_MS, new Metric("rebalance_max_ms", "max rebalance ms", "lower"));
    for (String protocol : new String[] {"classic", "consumer"}) {
      String infix = protocol.equals("classic") ? "" : "consumer-";
      String named = protocol.equals("classic") ? "classic protocol" : "KIP-848, group.protocol=consumer";
      ClientSettings settings = s.extra(Map.of("group.protocol", protocol));
      w.add(new Workload("kafka-group-consume-" + infix + "1KiB", "Kafka protocol: 3 kafka-clients consumers of one "
          + "group (subscribe, " + named + ") read 1 KiB records of 6 partitions", Kind.GROUP_CONSUME,
          BROOK_KAFKA_PROTOCOL, "kafka", 1024, records, 6, 1, 3, 0, 0, 0, settings, List.of(), consume, timeout));
      w.add(new Workload("kafka-tool-group-consume-" + infix + "1KiB", "Kafka protocol: Kafka's ConsumerPerformance "
          + "(one member of a group, subscribed, " + named + ") reads 1 KiB records of 6 partitions",
          Kind.CONSUMER_PERF, BROOK_KAFKA_PROTOCOL, "kafka", 1024, smoke ? records : records / 2, 6, 1, 1, 0, 0, 0,
          settings, List.of(), List.of(RECORDS_PER_S, new Metric("fetch_records_per_s", "fetch records/s", "higher"),
              REBALANCE_MS, CPU_PER_RECORD, MB_PER_S, BROKER_CPU), timeout));
      w.add(new Workload("kafka-group-rebalance-" + protocol, "Kafka protocol: a 3rd member joins a group of 2 "
          + "(group.protocol=" + protocol + ", 6 partitions): from its subscribe to all three assigned, " + rounds
          + " round" + (rounds > 1 ? "s" : ""), Kind.REBALANCE, BROOK_KAFKA_PROTOCOL, "kafka", 0, 0, 6, 0, 3, 0,
          rounds, 0, settings, List.of(), rebalance, timeout));
    }
    return w;
  }

  /**
   * Issue 25: the same kafka-clients producer and consumer against Brook's Kafka listener and against
   * Kafka, and Kafka's own ProducerPerformance at its default producer settings (kafka-tool-produce-*:
   * not a name that --workloads kafka-produce, a prefix, would also select). Sized so that the six
   * workloads, warm-up and 3 repeats included, take about 10 minutes on a 2-core machine.
   */
  static List<Workload> kafkaProtocol(boolean smoke, ClientSettings s, int timeout) {
    List<Workload> w = new ArrayList<>();
    List<Goal> goals = List.of(new Goal("records_per_s", 1.0, "throughput >= 1x Kafka"),
        new Goal("broker_cpu_us_per_record", 0.5, "broker CPU per record <= 0.5x Kafka"));
    List<Metric> produce = List.of(RECORDS_PER_S, CPU_PER_RECORD, MB_PER_S, P50, P99, MAX, BROKER_CPU);
    List<Metric> consume = List.of(RECORDS_PER_S, CPU_PER_RECORD, MB_PER_S, BROKER_CPU);
    for (int size : new int[] {100, 1024}) {
      String label = size == 100 ? "100B" : "1KiB";
      String bytes = size == 100 ? "100 B" : "1 KiB";
      // Full size: runs of several seconds each at the rates seen on a 2-core VM (kafka-clients 1-2 M
      // records/s at 100 B, 0.4 M at 1 KiB; ProducerPerformance's 16 KiB batches a quarter of that).
      long records = smoke ? (size == 100 ? 20_000 : 5_000) : (size == 100 ? 10_000_000 : 2_000_000);
      long toolRecords = smoke ? records : records / 2;
      w.add(new Workload("kafka-produce-" + label, "Kafka protocol: kafka-clients produces " + bytes
          + " records at the maximum rate, 1 producer", Kind.PRODUCE, BROOK_KAFKA_PROTOCOL, "kafka", size, records,
          4, 1, 0, 0, 0, 0, s, goals, produce, timeout));
      w.add(new Workload("kafka-consume-" + label, "Kafka protocol: kafka-clients consumes " + bytes
          + " records from the earliest offset (assign, no group)", Kind.CONSUME, BROOK_KAFKA_PROTOCOL, "kafka", size,
          records, 4, 1, 1, 0, 0, 0, s, goals, consume, timeout));
      w.add(new Workload("kafka-tool-produce-" + label, "Kafka protocol: Kafka's ProducerPerformance, " + bytes
          + " records, its default producer settings", Kind.PRODUCER_PERF, BROOK_KAFKA_PROTOCOL, "kafka", size,
          toolRecords, 4, 1, 0, 0, 0, 0, PRODUCER_PERF_DEFAULTS, goals, produce, timeout));
    }
    // The same KafkaShareConsumer on both brokers: Brook's share groups are its ack groups (issue 27, D65).
    w.add(new Workload("kafka-ack-4-consumers", "Kafka protocol: 4 KafkaShareConsumers receive and accept each 1 KiB"
        + " record (explicit acknowledgement)", Kind.ACK, BROOK_KAFKA_PROTOCOL, "kafka", 1024, smoke ? 5_000 : 1_000_000,
        4, 1, 4, 0, 0, 0, s, List.of(new Goal("records_per_s", 3.0, "share groups >= 3x Kafka"),
            new Goal("broker_cpu_us_per_record", 0.5, "broker CPU per record <= 0.5x Kafka")),
        List.of(RECORDS_PER_S, CPU_PER_RECORD, MB_PER_S, new Metric("redelivered", "redelivered", "lower"), BROKER_CPU),
        timeout));
    return w;
  }
}
