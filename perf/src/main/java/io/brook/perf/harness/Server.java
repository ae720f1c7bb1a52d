package io.brook.perf.harness;

import io.brook.perf.ProcessCpu;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A broker process the harness started: where it listens, and what it costs the machine. */
abstract class Server implements AutoCloseable {
  final String name;
  final Path dir;
  long readyMillis;

  Server(String name, Path dir) {
    this.name = name;
    this.dir = dir;
  }

  /** host:port for the clients. */
  abstract String address();

  /** Where it listens, for the log. */
  String listeners() {
    return address();
  }

  /** host:port for kafka-clients: Kafka's own address, Brook's Kafka listener (when it has one). */
  String kafkaBootstrap() {
    return address();
  }

  abstract long pid();

  /** Starts the process on {@link #dir} (formatting it if new) and returns once it serves clients. */
  abstract void start() throws Exception;

  /** SIGTERM, then the process is waited for; never leaves it running. */
  abstract void stop();

  @Override
  public void close() {
    stop();
  }

  /** Resident set size in MiB, from /proc; -1 when the process is gone. */
  double rssMib() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid() + "/status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  /** User + system CPU seconds the process has used so far; -1 when it is gone. */
  double cpuSeconds() {
    return ProcessCpu.seconds(pid());
  }

  /** Bytes under the data directory (the 10 GB start workload checks what it wrote). */
  long dataBytes() throws IOException {
    try (var files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
  }
}
