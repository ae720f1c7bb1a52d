package io.brook.perf.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The harness reads Kafka's ConsumerPerformance by its result line, and fails a run it cannot read. */
class ConsumerPerformanceToolTest {
  /** What kafka-tools 4.3.1 printed against Kafka 4.3.1: the header, then the result line. */
  private static final List<String> OUTPUT = List.of(
      "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, "
          + "fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec",
      "2026-11-27 14:18:56:411, 2026-11-27 14:18:57:007, 19.5313, 32.7706, 20000, 33557.0470, 359, 237, 82.4103, "
          + "84388.1857");

  @Test
  void readsTheResultLine() throws IOException {
    ConsumerPerformanceTool.Summary s = ConsumerPerformanceTool.summaryOf(OUTPUT);
    assertThat(s.records()).isEqualTo(20_000);
    assertThat(s.recordsPerSecond()).isEqualTo(33557.0470);
    assertThat(s.mb()).isEqualTo(19.5313);
    assertThat(s.mbPerSecond()).isEqualTo(32.7706);
    assertThat(s.rebalanceMs()).isEqualTo(359);
    assertThat(s.fetchMs()).isEqualTo(237);
    assertThat(s.fetchMbPerSecond()).isEqualTo(82.4103);
    assertThat(s.fetchRecordsPerSecond()).isEqualTo(84388.1857);
  }

  @Test
  void aToolThatReadNothingStillHasALine() throws IOException {
    // What it printed against Kafka 4.3.1 on an empty topic, --num-records 10 --timeout 2000 (exit status 0).
    ConsumerPerformanceTool.Summary s = ConsumerPerformanceTool.summaryOf(List.of(OUTPUT.get(0),
        "WARNING: Exiting before consuming the expected number of records: timeout (2000 ms) exceeded. You can use "
            + "the --timeout option to increase the timeout.",
        "2026-11-27 14:22:04:708, 2026-11-27 14:22:06:786, 0.0000, 0.0000, 0, 0.0000, 1364, 714, 0.0000, 0.0000"));
    assertThat(s.records()).isZero();
  }

  @Test
  void theHeaderAloneIsNoResult() {
    assertThatThrownBy(() -> ConsumerPerformanceTool.summaryOf(OUTPUT.subList(0, 1)))
        .isInstanceOf(IOException.class).hasMessageContaining("no ConsumerPerformance result line");
  }

  @Test
  void aToolThatFailsFailsTheRunWithItsOutput(@TempDir Path dir) {
    assertThatThrownBy(() -> ConsumerPerformanceTool.run(List.of("sh", "-c", "echo 'no group'; exit 1"),
        dir.resolve("cp.log"), 30)).isInstanceOf(IOException.class).hasMessage("ConsumerPerformance exited 1: no group");
  }

  @Test
  void subscribesThroughKafkaShWithAGroup() {
    assertThat(ConsumerPerformanceTool.command(Path.of("/repo"), "127.0.0.1:9", "t", "t-g", 1000)).containsExactly(
        "/repo/perf/kafka.sh", "run", "org.apache.kafka.tools.ConsumerPerformance", "--bootstrap-server",
        "127.0.0.1:9", "--topic", "t", "--group", "t-g", "--num-records", "1000", "--timeout", "30000");
  }

  @Test
  void passesTheWorkloadsConsumerSettingsAsCommandProperties() {
    assertThat(ConsumerPerformanceTool.command(Path.of("/repo"), "127.0.0.1:9", "t", "t-g", 1000,
        java.util.Map.of("group.protocol", "consumer", "client.id", "cp"))).endsWith("--timeout", "30000",
        "--command-property", "client.id=cp", "--command-property", "group.protocol=consumer");
  }
}
