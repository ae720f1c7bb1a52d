package io.brook.perf.harness;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Kafka's own consumer benchmark, {@code org.apache.kafka.tools.ConsumerPerformance} of kafka-tools 4.3.1,
 * run through {@code perf/kafka.sh run} as a process of its own, with only the bootstrap address, the
 * topic, the record count, a group id and the group protocol when it is not classic: it subscribes (a
 * consumer group of one member, the consumer's defaults otherwise) and reads until it has the records. Its figures are its own result line; a run
 * that read fewer records than asked (it gives up after {@code --timeout} ms without a record and still
 * prints its line) or that exits non-zero fails.
 */
final class ConsumerPerformanceTool {
  /**
   * The result line under the header "start.time, end.time, data.consumed.in.MB, MB.sec,
   * data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec":
   * two dates, then eight figures (kafka-tools 4.3.1, ConsumerPerformance.printConsumerProgress).
   */
  private static final Pattern RESULT = Pattern.compile("^[^,]+, [^,]+, ([0-9.]+), ([0-9.]+), (\\d+), ([0-9.]+), "
      + "(-?\\d+), (-?\\d+), ([0-9.]+|NaN|Infinity), ([0-9.]+|NaN|Infinity)$");
  /** ms without a record after which the tool stops (its --timeout; 10 s by default). */
  static final int IDLE_TIMEOUT_MS = 30_000;

  private ConsumerPerformanceTool() {}

  /** What the result line says; rebalance is the group join before the first fetch. */
  record Summary(double mb, double mbPerSecond, long records, double recordsPerSecond, long rebalanceMs,
      long fetchMs, double fetchMbPerSecond, double fetchRecordsPerSecond) {}

  /** The command line: {@code records} records of {@code topic} read by a member of {@code group}. */
  static List<String> command(Path repo, String bootstrap, String topic, String group, long records) {
    return command(repo, bootstrap, topic, group, records, Map.of());
  }

  /**
   * The same with consumer settings of the workload's ({@code group.protocol=consumer} for KIP-848), each
   * passed as the tool's {@code --command-property key=value}, in key order.
   */
  static List<String> command(Path repo, String bootstrap, String topic, String group, long records,
      Map<String, String> consumer) {
    List<String> command = new ArrayList<>(List.of(repo.resolve("perf/kafka.sh").toString(), "run",
        "org.apache.kafka.tools.ConsumerPerformance", "--bootstrap-server", bootstrap, "--topic", topic, "--group", group,
        "--num-records", Long.toString(records), "--timeout", Integer.toString(IDLE_TIMEOUT_MS)));
    new TreeMap<>(consumer).forEach((key, value) -> command.addAll(List.of("--command-property", key + "=" + value)));
    return List.copyOf(command);
  }

  /** Runs the tool to its end (its output kept in {@code log}) and returns its result line's figures. */
  static Summary run(List<String> command, Path log, int timeoutSeconds) throws IOException, InterruptedException {
    return summaryOf(KafkaTool.run("ConsumerPerformance", command, log, timeoutSeconds));
  }

  /** The result line among the tool's output lines. */
  static Summary summaryOf(List<String> lines) throws IOException {
    for (int i = lines.size() - 1; i >= 0; i--) {
      Matcher m = RESULT.matcher(lines.get(i).trim());
      if (m.matches()) {
        return new Summary(Double.parseDouble(m.group(1)), Double.parseDouble(m.group(2)), Long.parseLong(m.group(3)),
            Double.parseDouble(m.group(4)), Long.parseLong(m.group(5)), Long.parseLong(m.group(6)),
            Double.parseDouble(m.group(7)), Double.parseDouble(m.group(8)));
      }
    }
    throw new IOException("no ConsumerPerformance result line in its output: " + KafkaTool.lastLines(lines));
  }
}
