package io.brook.perf.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The Kafka 4.3.1 peer: a KRaft combined node on 127.0.0.1 started and stopped by {@code perf/kafka.sh}
 * (which resolves the one Kafka version from Maven). Ready is measured by that script from the server
 * JVM's launch to "Kafka Server started" with the listener accepting, the same span as Brook's.
 */
final class KafkaServer extends Server {
  private final Path repo;
  private final String heap;
  private String bootstrap;
  private long pid = -1;

  KafkaServer(String name, Path repo, Path dir, String heap) {
    super(name, dir);
    this.repo = repo;
    this.heap = heap;
  }

  @Override
  String address() {
    return bootstrap;
  }

  @Override
  long pid() {
    return pid;
  }

  @Override
  void start() throws Exception {
    Path out = dir.resolveSibling(dir.getFileName() + ".start.log");
    Files.createDirectories(dir);
    ProcessBuilder pb = new ProcessBuilder(repo.resolve("perf/kafka.sh").toString(), "start", dir.toString())
        .redirectErrorStream(true).redirectOutput(out.toFile());
    pb.environment().put("KAFKA_HEAP_OPTS", heap);
    Process p = pb.start();
    if (!p.waitFor(180, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IOException(name + ": perf/kafka.sh start failed:\n" + Files.readString(out));
    }
    Map<String, String> env = env();
    bootstrap = env.get("KAFKA_BOOTSTRAP");
    pid = Long.parseLong(env.get("KAFKA_PID"));
    readyMillis = Long.parseLong(env.get("KAFKA_READY_MS"));
  }

  private Map<String, String> env() throws IOException {
    Map<String, String> env = new HashMap<>();
    for (String line : Files.readAllLines(dir.resolve("kafka.env"))) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        env.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return env;
  }

  @Override
  void stop() {
    if (pid < 0) {
      return;
    }
    try {
      Process p = new ProcessBuilder(List.of(repo.resolve("perf/kafka.sh").toString(), "stop", dir.toString()))
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (!p.waitFor(90, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    } catch (IOException e) {
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    } catch (InterruptedException e) {
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
      Thread.currentThread().interrupt();
    }
    pid = -1;
  }
}
