package io.brook.perf.harness;

import static io.brook.perf.harness.Workload.BROKER_CPU;
import static io.brook.perf.harness.Workload.MAX;
import static io.brook.perf.harness.Workload.MB_PER_S;
import static io.brook.perf.harness.Workload.P50;
import static io.brook.perf.harness.Workload.P99;
import static io.brook.perf.harness.Workload.P999;
import static io.brook.perf.harness.Workload.READY;
import static io.brook.perf.harness.Workload.RECORDS_PER_S;
import static io.brook.perf.harness.Workload.RSS;

import io.brook.perf.harness.SystemClient.ClientSettings;
import io.brook.perf.harness.Workload.Goal;
import io.brook.perf.harness.Workload.Kind;
import io.brook.perf.harness.Workload.Metric;
import java.util.ArrayList;
import java.util.List;

/**
 * The workloads of SPEC §10 and issue 11, at full size or at smoke size (seconds: proves the harness
 * drives both systems, measures nothing worth quoting). One definition per workload; the sizes are
 * the only difference between the modes.
 */
final class Workloads {
  private static final List<String> BROOK_KAFKA = List.of("brook", "kafka");
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
          producers, 0, 0, 0, 0, s, new Goal("records_per_s", 3.0, "produce >= 3x Kafka"), THROUGHPUT, timeout));
      w.add(new Workload("produce-1KiB-" + producers + "p", "Produce at the maximum rate, 1 KiB records, "
          + producers + " producer" + (producers > 1 ? "s" : ""), Kind.PRODUCE, BROOK_KAFKA, "kafka", 1024, large, 4,
          producers, 0, 0, 0, 0, s, new Goal("records_per_s", 3.0, "produce >= 3x Kafka"), THROUGHPUT, timeout));
    }
    w.add(new Workload("consume-100B", "Consume from the earliest offset, 100 B records, 1 consumer", Kind.CONSUME,
        BROOK_KAFKA, "kafka", 100, small, 4, 1, 1, 0, 0, 0, s, new Goal("records_per_s", 1.0, "consume >= 1x Kafka"),
        List.of(RECORDS_PER_S, MB_PER_S, BROKER_CPU), timeout));
    w.add(new Workload("consume-1KiB", "Consume from the earliest offset, 1 KiB records, 1 consumer", Kind.CONSUME,
        BROOK_KAFKA, "kafka", 1024, large, 4, 1, 1, 0, 0, 0, s, new Goal("records_per_s", 1.0, "consume >= 1x Kafka"),
        List.of(RECORDS_PER_S, MB_PER_S, BROKER_CPU), timeout));
    int rate = smoke ? 2_000 : 10_000;
    int e2eSeconds = smoke ? 3 : 30;
    w.add(new Workload("e2e-latency", "End-to-end latency at " + rate + " records/s, 100 B, produce -> consume",
        Kind.END_TO_END, BROOK_KAFKA, "kafka", 100, (long) rate * e2eSeconds, 4, 1, 1, rate, e2eSeconds, 0,
        s.linger(0), new Goal("p99_ms", 0.5, "end-to-end p99 <= 0.5x Kafka"), LATENCY, timeout));
    w.add(new Workload("ack-4-consumers", "Ack mode: 4 consumers receive and ack each 1 KiB record "
        + "(Brook ack group vs Kafka share group)", Kind.ACK, BROOK_KAFKA, "kafka", 1024, smoke ? 5_000 : 1_000_000,
        4, 1, 4, 0, 0, 0, s, new Goal("records_per_s", 3.0, "ack mode >= 3x Kafka share groups"),
        List.of(RECORDS_PER_S, MB_PER_S, new Metric("redelivered", "redelivered", "lower"), BROKER_CPU), timeout));
    w.add(new Workload("synced-16p", "Durable produce: 16 producers, one 100 B record per request, forced to disk",
        Kind.SYNCED, List.of("brook", "brook-no-group-commit", "kafka-flush"), "brook-no-group-commit", 100, 0, 1, 16,
        0, 0, smoke ? 2 : 10, 0, s.linger(0).synced(true),
        new Goal("records_per_s", 10.0, "SYNCED with group commit >= 10x one force per request"),
        List.of(RECORDS_PER_S, P50, P99, MAX, BROKER_CPU), timeout));
    w.add(new Workload("start-empty", "Start to ready, empty data directory", Kind.START_EMPTY, BROOK_KAFKA, "kafka",
        0, 0, 0, 0, 0, 0, 0, 0, s, null, List.of(READY, RSS), timeout));
    long full = smoke ? 20L << 20 : 10L << 30;
    w.add(new Workload("start-" + (smoke ? "20MiB" : "10GiB"), "Start to ready, " + (smoke ? "20 MiB" : "10 GiB")
        + " of 1 KiB records in 4 partitions", Kind.START_FULL, BROOK_KAFKA, "kafka", 1024, full / 1024, 4, 4, 0, 0, 0,
        full, s, null, List.of(READY, RSS), smoke ? 120 : 1800));
    int parts = smoke ? 100 : 1000;
    w.add(new Workload("partitions-" + parts, parts + " partitions, one record each: resident memory",
        Kind.PARTITIONS, BROOK_KAFKA, "kafka", 100, parts, parts, 1, 0, 0, 0, 0, s, null,
        List.of(RSS, new Metric("rss_idle_mib", "RSS before MiB", "lower"),
            new Metric("create_s", "create s", "lower")), timeout));
    return w;
  }
}
