package io.brook.perf.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The harness reads Kafka's ProducerPerformance by its summary line, and fails a run it cannot read. */
class ProducerPerformanceToolTest {
  /** What kafka-tools 4.3.1 printed in a smoke run: progress lines, then the summary. */
  private static final List<String> OUTPUT = List.of(
      "2 records sent, 0.4 records/sec (0.00 MB/sec), 1.0 ms avg latency, 3.0 ms max latency.",
      "20000 records sent, 24721.878863 records/sec (2.36 MB/sec), 66.96 ms avg latency, 462.00 ms max latency, "
          + "73 ms 50th, 107 ms 95th, 111 ms 99th, 121 ms 99.9th.");

  @Test
  void readsTheSummaryLine() throws IOException {
    ProducerPerformanceTool.Summary s = ProducerPerformanceTool.summaryOf(OUTPUT);
    assertThat(s.records()).isEqualTo(20_000);
    assertThat(s.recordsPerSecond()).isEqualTo(24721.878863);
    assertThat(s.avgMs()).isEqualTo(66.96);
    assertThat(s.maxMs()).isEqualTo(462.0);
    assertThat(List.of(s.p50Ms(), s.p95Ms(), s.p99Ms(), s.p999Ms())).containsExactly(73.0, 107.0, 111.0, 121.0);
  }

  @Test
  void progressLinesAloneAreNoSummary() {
    assertThatThrownBy(() -> ProducerPerformanceTool.summaryOf(OUTPUT.subList(0, 1)))
        .isInstanceOf(IOException.class).hasMessageContaining("no ProducerPerformance summary line")
        .hasMessageContaining("0.4 records/sec");
  }

  @Test
  void aToolThatFailsFailsTheRunWithItsOutput(@TempDir Path dir) {
    assertThatThrownBy(() -> ProducerPerformanceTool.run(List.of("sh", "-c", "echo 'Topic t not present'; exit 3"),
        dir.resolve("pp.log"), 30)).isInstanceOf(IOException.class)
        .hasMessage("ProducerPerformance exited 3: Topic t not present");
  }

  @Test
  void runsTheToolThroughKafkaShWithOnlyTheBootstrapAddress() {
    assertThat(ProducerPerformanceTool.command(Path.of("/repo"), "127.0.0.1:9", "t", 1000, 100)).containsExactly(
        "/repo/perf/kafka.sh", "run", "org.apache.kafka.tools.ProducerPerformance", "--bootstrap-server",
        "127.0.0.1:9", "--topic", "t", "--num-records", "1000", "--record-size", "100", "--throughput", "-1");
  }
}
