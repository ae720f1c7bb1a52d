package io.brook.perf.harness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Brook broker started through {@code bin/brook broker}, as a user starts it, on 127.0.0.1 with a
 * free port. Ready is the broker's own "Brook ready:" line (written once gRPC serves); the time to it
 * runs from the process start, JVM start included. With {@code kafkaListener} its Kafka listener is
 * on too, on a port the broker picks (127.0.0.1:0), read back from the ready line.
 */
final class BrookServer extends Server {
  /** The Kafka listener's part of the ready line: "Kafka on 127.0.0.1:40123" (or "Kafka off"). */
  private static final Pattern KAFKA_ON = Pattern.compile("Kafka on \\S+:(\\d+)");

  private final Path repo;
  private final String heap;
  private final List<String> settings;
  private final boolean kafkaListener;
  private Process process;
  private int port;
  private volatile int kafkaPort;
  /** A properties file the broker reads with --config (the forward routes live there), or null. */
  private Path config;
  /** The Kafka listener's port on every start, so that clients reconnect after a restart; 0: any. */
  private int fixedKafkaPort;
  /** Copies the running broker's output into its log. */
  private Thread pump;
  /** The exit status of the last stop(); -1 when it had to be killed or has not stopped yet. */
  int lastExit = -1;

  BrookServer(String name, Path repo, Path dir, String heap, List<String> settings, boolean kafkaListener) {
    super(name, dir);
    this.repo = repo;
    this.heap = heap;
    this.settings = settings;
    this.kafkaListener = kafkaListener;
  }

  /** The broker reads this properties file (--config) from its next start on. */
  BrookServer config(Path file) {
    this.config = file;
    return this;
  }

  /** The Kafka listener keeps one free port across restarts (a producer's bootstrap stays valid). */
  BrookServer fixedKafkaPort() throws IOException {
    fixedKafkaPort = freePort();
    return this;
  }

  @Override
  String address() {
    return "127.0.0.1:" + port;
  }

  @Override
  String listeners() {
    return "gRPC " + address() + (kafkaPort == 0 ? "" : ", Kafka 127.0.0.1:" + kafkaPort);
  }

  @Override
  String kafkaBootstrap() {
    if (kafkaPort == 0) {
      throw new IllegalStateException(name + ": started without its Kafka listener");
    }
    return "127.0.0.1:" + kafkaPort;
  }

  @Override
  long pid() {
    return process == null ? -1 : process.pid();
  }

  @Override
  void start() throws Exception {
    if (port == 0) {
      port = freePort();
    }
    Files.createDirectories(dir);
    List<String> cmd = new ArrayList<>(List.of(repo.resolve("bin/brook").toString(), "broker",
        "--data-dir", dir.resolve("data").toString(), "--grpc-listen", address(), "--http-listen", "127.0.0.1:0",
        // localhost:9092 (the default) may be taken: a port of the broker's choosing, or no listener
        "--set", "kafka.listen=" + (kafkaListener ? "127.0.0.1:" + fixedKafkaPort : "")));
    if (config != null) {
      cmd.add("--config");
      cmd.add(config.toString());
    }
    for (String s : settings) {
      cmd.add("--set");
      cmd.add(s);
    }
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    // The broker reads BROOK_* variables as settings (and refuses unknown ones): it runs on defaults.
    pb.environment().keySet().removeIf(k -> k.startsWith("BROOK_"));
    pb.environment().put("BROOK_JAVA_OPTS", heap);
    Path log = dir.resolve("broker.log");
    kafkaPort = 0;
    long t0 = System.nanoTime();
    process = pb.start();
    CompletableFuture<Boolean> ready = new CompletableFuture<>();
    pump = new Thread(() -> pump(log, ready), name + "-log");
    pump.setDaemon(true);
    pump.start();
    Boolean ok;
    try {
      ok = ready.get(120, TimeUnit.SECONDS);
    } catch (Exception e) {
      ok = false;
    }
    readyMillis = (System.nanoTime() - t0) / 1_000_000;
    if (!Boolean.TRUE.equals(ok)) {
      stop();
      throw new IOException(name + ": the broker did not become ready; its log: " + log + "\n" + tail(log));
    }
  }

  /** Copies the broker's output to its log file and completes {@code ready} at the ready line. */
  private void pump(Path log, CompletableFuture<Boolean> ready) {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
        StandardCharsets.UTF_8)); var out = Files.newBufferedWriter(log, StandardCharsets.UTF_8,
        java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND)) {
      for (String line; (line = in.readLine()) != null; ) {
        out.write(line);
        out.newLine();
        out.flush();
        if (line.contains("Brook ready:")) {
          kafkaPort = kafkaPortOf(line);
          ready.complete(!kafkaListener || kafkaPort > 0);
        }
      }
    } catch (IOException e) {
      // the process ended; readiness below says what happened
    }
    ready.complete(false);
  }

  @Override
  void stop() {
    if (process == null) {
      return;
    }
    // SIGTERM through the handle: Process.destroy() would also close the output pipe at once, and the
    // broker's shutdown lines (a stack trace among them) would never reach the log.
    process.toHandle().destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
      lastExit = process.isAlive() ? -1 : process.exitValue();
      if (pump != null) {
        pump.join(5_000); // the last lines into the log before the next start appends to it
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    process = null;
  }

  /** SIGKILL (bin/brook execs the JVM: this is the broker itself), waited for; a crash, not a stop. */
  void kill() {
    if (process == null) {
      return;
    }
    process.destroyForcibly();
    try {
      process.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process = null;
  }

  /** The port of "Kafka on host:port" in the broker's ready line; 0 when it says "Kafka off". */
  static int kafkaPortOf(String readyLine) {
    Matcher m = KAFKA_ON.matcher(readyLine);
    return m.find() ? Integer.parseInt(m.group(1)) : 0;
  }

  static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    } catch (IOException e) {
      return "(no log)";
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
