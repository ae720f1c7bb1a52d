package io.brook.perf.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** One run of a Kafka tool as a process of its own (ProducerPerformance, ConsumerPerformance), its output kept. */
final class KafkaTool {
  private KafkaTool() {}

  /** Runs {@code command} to its end, stdout and stderr into {@code log}; its lines, or why it failed. */
  static List<String> run(String tool, List<String> command, Path log, int timeoutSeconds)
      throws IOException, InterruptedException {
    Files.createDirectories(log.toAbsolutePath().getParent());
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      throw new IOException(tool + " did not end within " + timeoutSeconds + " s; its output: " + log);
    }
    List<String> lines = Files.readAllLines(log);
    if (p.exitValue() != 0) {
      throw new IOException(tool + " exited " + p.exitValue() + ": " + lastLines(lines));
    }
    return lines;
  }

  static String lastLines(List<String> lines) {
    return lines.isEmpty() ? "(no output)" : String.join(" | ", lines.subList(Math.max(0, lines.size() - 5),
        lines.size()));
  }
}
