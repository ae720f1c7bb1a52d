package io.brook.broker.it;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The real broker, started from the shaded jar as {@code brook broker} in its own JVM on 127.0.0.1
 * with port 0 and a temp data directory. It can be stopped gracefully, killed with SIGKILL, and
 * started again on the same directory.
 */
public final class BrokerProcess implements AutoCloseable {
  private static final Pattern READY = Pattern.compile("Brook ready: gRPC on [^:]+:(\\d+)");
  private static final Pattern HTTP_PORT = Pattern.compile("Brook ready: .*, HTTP on [^:]+:(\\d+)");
  private static final Pattern KAFKA_PORT = Pattern.compile("Brook ready: .*, Kafka on [^:]+:(\\d+)");
  public static final long START_TIMEOUT_S = 60;
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private final Path dataDir;
  private final Path logFile;
  private final List<String> extraArgs;
  private final Map<String, String> env;
  private final List<String> jvmOptions;
  private Process process;
  private int port;
  private int httpPort;
  private int kafkaPort;
  private ManagedChannel channel;
  private int starts;
  /** SIGSTOPped by {@link #freeze()}. */
  private volatile boolean frozen;

  private BrokerProcess(Path dataDir, List<String> extraArgs, Map<String, String> env, List<String> jvmOptions) {
    this.dataDir = dataDir;
    this.logFile = dataDir.resolveSibling(dataDir.getFileName() + "-broker.log");
    this.extraArgs = extraArgs;
    this.env = env;
    this.jvmOptions = jvmOptions;
  }

  public static BrokerProcess start(Path dataDir, String... extraArgs) throws IOException {
    return start(dataDir, Map.of(), extraArgs);
  }

  public static BrokerProcess start(Path dataDir, Map<String, String> env, String... extraArgs) throws IOException {
    return start(dataDir, env, List.of(), extraArgs);
  }

  /** With JVM options (e.g. a small -Xmx: they come after the default -Xmx512m, so they win). */
  public static BrokerProcess start(Path dataDir, Map<String, String> env, List<String> jvmOptions,
      String... extraArgs) throws IOException {
    BrokerProcess b = new BrokerProcess(dataDir, Arrays.asList(extraArgs), env, jvmOptions);
    b.launch(0);
    b.awaitReady();
    return b;
  }

  /** The command that starts the broker, for tests that run it themselves. */
  public static List<String> command(Path dataDir, List<String> args) {
    return command(dataDir, List.of(), args);
  }

  static List<String> command(Path dataDir, List<String> jvmOptions, List<String> args) {
    return command(dataDir, jvmOptions, args, 0);
  }

  static List<String> command(Path dataDir, List<String> jvmOptions, List<String> args, int port) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String flag : System.getProperty("brook.jvm.flags", "").trim().split("\\s+")) {
      if (!flag.isEmpty()) {
        command.add(flag);
      }
    }
    command.add("-Xmx512m");
    command.addAll(jvmOptions);
    command.addAll(List.of("-jar", jar().toString(), "broker", "--data-dir", dataDir.toString(),
        "--grpc-listen", "127.0.0.1:" + port, "--http-listen", "127.0.0.1:0"));
    // The Kafka listener on a free port too, not localhost:9092. Later args override this one.
    command.addAll(List.of("--set", "kafka.listen=127.0.0.1:0"));
    command.addAll(args);
    return command;
  }

  public static Path jar() {
    Path jar = Path.of(System.getProperty("brook.jar", "target/brook.jar"));
    if (!Files.exists(jar)) {
      throw new IllegalStateException(jar + " is missing: run the ITs through 'mvnw verify' (after package)");
    }
    return jar;
  }

  private void launch(int listenPort) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(command(dataDir, jvmOptions, extraArgs, listenPort)).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
    pb.environment().keySet().removeIf(k -> k.startsWith("BROOK_"));
    pb.environment().putAll(env);
    starts++;
    Files.writeString(logFile, "=== start " + starts + "\n", java.nio.file.StandardOpenOption.CREATE,
        java.nio.file.StandardOpenOption.APPEND);
    process = pb.start();
  }

  private void awaitReady() throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_S);
    while (System.nanoTime() < deadline) {
      String log = currentStartLog();
      Matcher m = READY.matcher(log);
      if (m.find()) {
        port = Integer.parseInt(m.group(1));
        Matcher http = HTTP_PORT.matcher(log);
        httpPort = http.find() ? Integer.parseInt(http.group(1)) : -1;
        Matcher kafka = KAFKA_PORT.matcher(log);
        kafkaPort = kafka.find() ? Integer.parseInt(kafka.group(1)) : -1;
        channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().maxInboundMessageSize(16 << 20)
            .build();
        return;
      }
      if (!process.isAlive()) {
        throw new IllegalStateException("broker exited with " + process.exitValue() + ":\n" + log);
      }
      sleep(50);
    }
    process.destroyForcibly();
    throw new IllegalStateException("broker not ready within " + START_TIMEOUT_S + " s:\n" + currentStartLog());
  }

  /** The log of the latest start only. */
  public String currentStartLog() throws IOException {
    String all = Files.readString(logFile);
    return all.substring(all.lastIndexOf("=== start " + starts));
  }

  public int port() {
    return port;
  }

  /** The HTTP server's port (/healthz, /metrics, ...), as the ready line reports it. */
  public int httpPort() {
    return httpPort;
  }

  /**
   * The value of an unlabelled metric in a plaintext, unauthenticated broker's /metrics scrape, or
   * NaN when the scrape does not have it.
   */
  public double metric(String name) throws IOException, InterruptedException {
    String body = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/metrics")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    return body.lines().filter(l -> l.startsWith(name + " ")).mapToDouble(l -> Double.parseDouble(l.substring(
        name.length() + 1).trim())).findFirst().orElse(Double.NaN);
  }

  /** The Kafka listener's port, as the ready line reports it; -1 when it is off. */
  public int kafkaPort() {
    return kafkaPort;
  }

  /** The Kafka listener as a bootstrap server. */
  public String kafkaAddress() {
    return "127.0.0.1:" + kafkaPort;
  }

  public String address() {
    return "127.0.0.1:" + port;
  }

  public ManagedChannel channel() {
    return channel;
  }

  public Path dataDir() {
    return dataDir;
  }

  /** The broker JVM's pid, for tests that signal it themselves. */
  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /**
   * SIGSTOP: the broker keeps its connections and accepts new ones (the kernel does), and answers
   * nothing until {@link #thaw()}; a deterministic "broker that does not answer". {@link #close()}
   * thaws it first.
   */
  public void freeze() throws IOException, InterruptedException {
    signal("STOP");
    frozen = true;
  }

  /** SIGCONT after {@link #freeze()}: the broker answers what waited. */
  public void thaw() throws IOException, InterruptedException {
    signal("CONT");
    frozen = false;
  }

  private void signal(String name) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
    if (kill.waitFor() != 0) {
      throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
    }
  }

  /** SIGKILL: no shutdown hook runs, nothing is flushed or closed. */
  public void kill9() throws InterruptedException {
    // The process dies first: closing the channel first let a broker quick enough see its streams
    // reset and act on it (an ack member's unconfirmed deliveries taken back) before the kill.
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
    closeChannel();
  }

  /** SIGTERM and wait. */
  public int stop() throws InterruptedException {
    closeChannel();
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
    return process.waitFor();
  }

  /** SIGTERM while clients are still connected (their calls meet the shutdown), and wait: the exit code. */
  public int terminate() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
    int exit = process.waitFor();
    closeChannel();
    return exit;
  }

  /** Starts again on the same data directory (a new port). */
  public void restart() throws IOException {
    restart(0);
  }

  /** Starts again on the same data directory and the same port, where clients reconnect by themselves. */
  public void restartOnSamePort() throws IOException {
    restart(port);
  }

  private void restart(int listenPort) throws IOException {
    if (process.isAlive()) {
      throw new IllegalStateException("stop or kill the broker first");
    }
    launch(listenPort);
    awaitReady();
  }

  private void closeChannel() {
    if (channel != null) {
      channel.shutdownNow();
      channel = null;
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (frozen && process.isAlive()) {
      try {
        thaw(); // a stopped JVM cannot act on the SIGTERM below
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
    if (process != null && process.isAlive()) {
      stop();
    }
    closeChannel();
  }
}
