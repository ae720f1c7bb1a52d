package io.brook.perf.harness;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Kafka's own producer benchmark, {@code org.apache.kafka.tools.ProducerPerformance} of kafka-tools
 * 4.3.1, run through {@code perf/kafka.sh run} as a process of its own (as a Kafka user runs it), with
 * only the bootstrap address given: the producer's defaults otherwise. Its figures are its own summary
 * line; a run whose summary counts fewer records than asked (a send failed: the tool prints the
 * exception and leaves the record out) or that exits non-zero fails.
 */
final class ProducerPerformanceTool {
  /**
   * The tool's last line: "N records sent, R records/sec (M MB/sec), A ms avg latency, X ms max latency,
   * P ms 50th, P ms 95th, P ms 99th, P ms 99.9th." (kafka-tools 4.3.1, ProducerPerformance.Stats).
   */
  private static final Pattern SUMMARY = Pattern.compile("^(\\d+) records sent, ([0-9.]+) records/sec \\([0-9.]+ "
      + "MB/sec\\), ([0-9.]+) ms avg latency, ([0-9.]+) ms max latency, (\\d+) ms 50th, (\\d+) ms 95th, "
      + "(\\d+) ms 99th, (\\d+) ms 99\\.9th\\.$");

  private ProducerPerformanceTool() {}

  /** What the summary line says. */
  record Summary(long records, double recordsPerSecond, double avgMs, double maxMs, double p50Ms, double p95Ms,
      double p99Ms, double p999Ms) {}

  /** The command line: {@code records} records of {@code size} bytes to {@code topic}, unthrottled. */
  static List<String> command(Path repo, String bootstrap, String topic, long records, int size) {
    return List.of(repo.resolve("perf/kafka.sh").toString(), "run", "org.apache.kafka.tools.ProducerPerformance",
        "--bootstrap-server", bootstrap, "--topic", topic, "--num-records", Long.toString(records),
        "--record-size", Integer.toString(size), "--throughput", "-1");
  }

  /** Runs the tool to its end (its output kept in {@code log}) and returns its summary. */
  static Summary run(List<String> command, Path log, int timeoutSeconds) throws IOException, InterruptedException {
    return summaryOf(KafkaTool.run("ProducerPerformance", command, log, timeoutSeconds));
  }

  /** The summary line among the tool's output lines (its progress lines lack the percentiles). */
  static Summary summaryOf(List<String> lines) throws IOException {
    for (int i = lines.size() - 1; i >= 0; i--) {
      Matcher m = SUMMARY.matcher(lines.get(i).trim());
      if (m.matches()) {
        return new Summary(Long.parseLong(m.group(1)), Double.parseDouble(m.group(2)),
            Double.parseDouble(m.group(3)), Double.parseDouble(m.group(4)), Double.parseDouble(m.group(5)),
            Double.parseDouble(m.group(6)), Double.parseDouble(m.group(7)), Double.parseDouble(m.group(8)));
      }
    }
    throw new IOException("no ProducerPerformance summary line in its output: " + KafkaTool.lastLines(lines));
  }
}
