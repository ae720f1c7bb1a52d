package io.brook.perf.harness;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The forward check (issue 28, D72): Apache Kafka 4.3.1 (perf/kafka.sh) and the real Brook broker
 * (bin/brook broker --config, one forward route to that Kafka), a producer writing N records with keys,
 * headers and timestamps into Brook at a steady rate over several partitions; while it writes, Brook is
 * killed with SIGKILL and started again, then Kafka is stopped for 30 s and started again (same data),
 * Brook stopped cleanly (SIGTERM) and started again half way into that outage, then Brook is
 * killed once more while the route drains what piled up; its log must hold no stack trace. Then the
 * route's cursor must reach the end, and {@link ForwardVerifier} compares the target topic in Kafka with
 * the source topic in Brook.
 * Prints "forward-check: ok|FAIL ..." per check and "forward-check: N passed, M failed"; exit 1 on a failure.
 * {@code --forwarder loop} runs {@link ForwardLoop} in place of Brook's route: the check checking itself.
 */
@Command(name = "forward-check", mixinStandardHelpOptions = true,
    description = "Brook's forward route to a real Kafka 4.3.1 through crashes and an outage, then verified.")
public final class ForwardCheck implements Callable<Integer> {
  static final String STEP = "forward-check";
  static final String ROUTE = "check";
  static final String SOURCE = "fc-orders";
  static final String TARGET = "fc-orders-copy";

  @Option(names = "--records", defaultValue = "100000", description = "Records produced into Brook.")
  int records;
  @Option(names = "--rate", defaultValue = "2500", description = "Records per second the producer keeps to.")
  int rate;
  @Option(names = "--partitions", defaultValue = "4", description = "Partitions of the source topic.")
  int partitions;
  @Option(names = "--outage-seconds", defaultValue = "30", description = "How long Kafka stays stopped.")
  int outage;
  @Option(names = "--drain-timeout", defaultValue = "300", description = "Seconds for the cursor to reach the end.")
  int drainTimeout;
  @Option(names = "--forwarder", defaultValue = "route", description = "route (Brook's forwarder) or loop "
      + "(ForwardLoop, a consumer -> producer process: checks the check).")
  String forwarder;
  @Option(names = "--repo", defaultValue = ".", description = "The Brook checkout (bin/brook, perf/kafka.sh).")
  Path repo;
  @Option(names = "--work", required = true, description = "Where Kafka and Brook keep data and logs.")
  Path work;
  @Option(names = "--heap", defaultValue = "-Xms512m -Xmx512m", description = "Each broker's heap options.")
  String heap;

  private int passed;
  private int failed;
  private final List<Process> loops = new ArrayList<>();

  public static void main(String[] args) {
    System.setProperty("org.slf4j.simpleLogger.log.org.apache.kafka", "off");
    System.exit(new CommandLine(new ForwardCheck()).execute(args));
  }

  private void check(String what, boolean ok, String detail) {
    if (ok) {
      passed++;
    } else {
      failed++;
    }
    System.out.println(STEP + ": " + (ok ? "ok   " : "FAIL ") + what);
    if (detail != null && !detail.isEmpty()) {
      System.out.println("    " + detail);
    }
  }

  private static void info(String s) {
    System.out.println(STEP + ": " + s);
  }

  @Override
  public Integer call() throws Exception {
    if (!forwarder.equals("route") && !forwarder.equals("loop")) {
      System.err.println(STEP + ": --forwarder is route or loop, not " + forwarder);
      return 2;
    }
    Path w = Files.createDirectories(work.toAbsolutePath());
    Path root = repo.toAbsolutePath();
    KafkaServer kafka = new KafkaServer("kafka", root, w.resolve("kafka"), heap);
    BrookServer brook = null;
    try {
      try {
        kafka.start();
        check("Kafka " + org.apache.kafka.common.utils.AppInfoParser.getVersion() + " started on "
            + kafka.address() + " (" + kafka.readyMillis + " ms)", true, "");
      } catch (Exception e) {
        check("Kafka 4.3.1 started", false, e.getMessage());
        return summary();
      }
      Path config = w.resolve("brook.properties");
      Files.writeString(config, routeConfig(kafka.address()));
      brook = new BrookServer("brook", root, w.resolve("brook"), heap, List.of(), true).config(config).fixedKafkaPort();
      try {
        brook.start();
        check("Brook started with route '" + ROUTE + "' " + SOURCE + " -> Kafka " + TARGET + " ("
            + brook.readyMillis + " ms)", true, "");
      } catch (Exception e) {
        check("Brook started with the route", false, e.getMessage());
        return summary();
      }
      run(kafka, brook);
    } finally {
      loops.forEach(Process::destroyForcibly);
      if (brook != null) {
        brook.stop();
      }
      kafka.stop();
    }
    return summary();
  }

  private int summary() {
    System.out.println(STEP + ": " + passed + " passed, " + failed + " failed");
    return failed == 0 ? 0 : 1;
  }

  /** The route: a short backoff cap and short Kafka timeouts, so that the outage shows as failures to retry. */
  private String routeConfig(String bootstrap) {
    if (forwarder.equals("loop")) {
      return "# forward-check --forwarder loop: no route, ForwardLoop forwards\n";
    }
    String r = "forward." + ROUTE + ".";
    return String.join("\n", "# forward-check (issue 28, D72)", r + "source=" + SOURCE, r + "target=" + TARGET,
        r + "bootstrap.servers=" + bootstrap, r + "create.target=true", r + "backoff.max.ms=2000",
        r + "kafka.request.timeout.ms=5000", r + "kafka.delivery.timeout.ms=15000", "");
  }

  private String cursorGroup() {
    return forwarder.equals("loop") ? "fc-loop" : "__forward." + ROUTE;
  }

  private void run(KafkaServer kafka, BrookServer brook) throws Exception {
    String brookKafka = brook.kafkaBootstrap();
    try (Admin brookAdmin = ForwardKit.admin(brookKafka)) {
      ForwardKit.createTopic(brookAdmin, SOURCE, partitions, Map.of());
      if (forwarder.equals("loop")) {
        try (Admin kafkaAdmin = ForwardKit.admin(kafka.address())) {
          ForwardKit.createTopic(kafkaAdmin, TARGET, partitions, Map.of());
        }
        startLoop(brookKafka, kafka.address());
      }
      Writer writer = new Writer(brookKafka);
      Thread writing = new Thread(writer, "forward-check-producer");
      long t0 = System.nanoTime();
      writing.start();
      String group = cursorGroup();

      // 1. kill -9 Brook a quarter of the way
      waitFor(() -> writer.acked.get() >= records / 4 || !writing.isAlive(), 600);
      long lag = ForwardKit.lag(ForwardKit.endOffsets(brookAdmin, SOURCE, partitions),
          ForwardKit.committed(brookAdmin, group, SOURCE, partitions));
      brook.kill();
      long killedAt = System.nanoTime();
      String restarted = restart(brook);
      check("kill -9 Brook at " + writer.acked.get() + " records acknowledged, the route " + lag
          + " records behind; started again" + restarted, restarted.startsWith(" in"), "");

      // 2. Kafka stopped for the outage half way, the producer writing on into Brook
      waitFor(() -> writer.acked.get() >= records / 2 || !writing.isAlive(), 600);
      long before = writer.acked.get();
      kafka.stop();
      long stoppedAt = System.nanoTime();
      // half way into the outage, a clean stop of Brook: the route is waiting on a Kafka that is down (its
      // first sends have timed out, the next producer waits for metadata)
      Thread.sleep(TimeUnit.SECONDS.toMillis(outage) / 2);
      long t = System.nanoTime();
      brook.stop();
      long stopMs = (System.nanoTime() - t) / 1_000_000;
      int exit = brook.lastExit;
      restarted = restart(brook);
      check("SIGTERM to Brook during the outage: exit " + exit + " in " + stopMs + " ms (at most 15,000); started "
          + "again" + restarted, exit == 0 && stopMs <= 15_000 && restarted.startsWith(" in"), "");
      long left = stoppedAt + TimeUnit.SECONDS.toNanos(outage) - System.nanoTime();
      if (left > 0) {
        TimeUnit.NANOSECONDS.sleep(left);
      }
      long during = writer.acked.get() - before;
      String kafkaBack;
      try {
        kafka.start();
        kafkaBack = " in " + kafka.readyMillis + " ms";
      } catch (Exception e) {
        kafkaBack = ": FAILED " + e.getMessage();
      }
      check("Kafka stopped for " + (System.nanoTime() - stoppedAt) / 1_000_000_000 + " s (" + outage
          + " s down, then its restart) while Brook took " + during + " more records; started again on the same data"
          + kafkaBack, kafkaBack.startsWith(" in") && during > 0, during > 0 ? "" : "the producer wrote nothing "
          + "during the outage: it ended too early (raise --records or lower --rate)");

      // 3. kill -9 Brook again while the route drains what piled up during the outage
      Map<Integer, Long> atBack = ForwardKit.committed(brookAdmin, group, SOURCE, partitions);
      long backPos = ForwardKit.sum(atBack);
      waitFor(() -> ForwardKit.sum(ForwardKit.committed(brookAdmin, group, SOURCE, partitions)) > backPos, 60);
      long lag2 = ForwardKit.lag(ForwardKit.endOffsets(brookAdmin, SOURCE, partitions),
          ForwardKit.committed(brookAdmin, group, SOURCE, partitions));
      brook.kill();
      restarted = restart(brook);
      check("kill -9 Brook while the route drains the outage's backlog (" + lag2 + " records behind); started again"
          + restarted, restarted.startsWith(" in") && lag2 > 0, lag2 > 0 ? "" : "nothing left to forward at the "
          + "kill: the backlog was drained before it (lag " + lag2 + ")");

      writing.join(TimeUnit.SECONDS.toMillis(Math.max(600, 10L * records / Math.max(1, rate))));
      check("the producer wrote " + records + " records into Brook, every one acknowledged (" + writer.resent.get()
          + " sent again after a failure) in " + (System.nanoTime() - t0) / 1_000_000_000 + " s",
          writer.error.get() == null && writer.acked.get() == records,
          writer.error.get() == null ? (writer.acked.get() == records ? "" : writer.acked.get() + " acknowledged")
              : writer.error.get().toString());

      // 4. the cursor reaches the end
      long drainStart = System.nanoTime();
      Map<Integer, Long> end = ForwardKit.endOffsets(brookAdmin, SOURCE, partitions);
      AtomicReference<Map<Integer, Long>> cursor = new AtomicReference<>();
      boolean caughtUp = waitFor(() -> {
        cursor.set(ForwardKit.committed(brookAdmin, group, SOURCE, partitions));
        return end != null && end.equals(cursor.get());
      }, drainTimeout);
      check("the route's cursor (group " + group + ") reached the end of every partition " + end + " in "
          + (System.nanoTime() - drainStart) / 1_000_000 + " ms after the producer's end", caughtUp,
          caughtUp ? "" : "cursor " + cursor.get() + " after " + drainTimeout + " s");
      info("killed at " + (killedAt - t0) / 1_000_000 + " ms, Kafka stopped at " + (stoppedAt - t0) / 1_000_000
          + " ms; reading both topics");
      verify(brookKafka, kafka.address(), writer);
      List<String> traces = stackTraces(brook.dir.resolve("broker.log"));
      check("Brook's log holds no stack trace (" + traces.size() + " found)", traces.isEmpty(),
          traces.isEmpty() ? "" : String.join("\n    ", traces.subList(0, Math.min(6, traces.size()))));
      check("Brook still serving at the end (no crash of its own)", brook.pid() > 0
          && ProcessHandle.of(brook.pid()).map(ProcessHandle::isAlive).orElse(false), "");
    }
  }

  private void verify(String brookKafka, String kafkaBootstrap, Writer writer) {
    ForwardVerifier v = new ForwardVerifier(SOURCE, partitions);
    try {
      long n = ForwardKit.readAll(brookKafka, SOURCE, v::source, Duration.ofMinutes(5));
      long m = ForwardKit.readAll(kafkaBootstrap, TARGET, v::target, Duration.ofMinutes(5));
      info("read " + n + " records of Brook's " + SOURCE + ", " + m + " of Kafka's " + TARGET);
    } catch (Exception e) {
      check("both topics read to their end", false, e.toString());
      return;
    }
    for (ForwardVerifier.Check c : v.verdicts(writer.acked.get())) {
      check(c.what(), c.ok(), c.detail());
    }
  }

  /** The lines of the broker's log (every start's) that begin a stack trace, with the line before each. */
  static List<String> stackTraces(Path log) throws java.io.IOException {
    List<String> lines = Files.readAllLines(log);
    List<String> out = new ArrayList<>();
    for (int i = 1; i < lines.size(); i++) {
      if (lines.get(i).startsWith("\tat ") && !lines.get(i - 1).startsWith("\tat ")) {
        out.add((i >= 2 ? lines.get(i - 2) + " / " : "") + lines.get(i - 1) + " / " + lines.get(i).trim());
      }
    }
    return out;
  }

  private static String restart(BrookServer brook) {
    try {
      brook.start();
      return " in " + brook.readyMillis + " ms";
    } catch (Exception e) {
      return ": FAILED " + e.getMessage();
    }
  }

  private void startLoop(String from, String to) throws Exception {
    Path log = work.toAbsolutePath().resolve("forward-loop.log");
    ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-cp", System.getProperty("java.class.path"), ForwardLoop.class.getName(), from, to, SOURCE, TARGET,
        "fc-loop", "forward-check-loop").redirectErrorStream(true).redirectOutput(log.toFile());
    loops.add(pb.start());
  }

  /** Polls {@code done} every 50 ms for up to {@code seconds}; whether it became true. */
  private static boolean waitFor(BooleanSupplier done, int seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < deadline) {
      if (done.getAsBoolean()) {
        return true;
      }
      Thread.sleep(50);
    }
    return done.getAsBoolean();
  }

  /**
   * Writes records 0..N-1 at the rate in chunks of a tenth of a second, each chunk flushed; what failed
   * (Brook killed under it) is sent again with the next chunk, so every record is acknowledged once at
   * least (twice on Brook when an acknowledgement was lost: a retry, which the verifier tells apart).
   */
  private final class Writer implements Runnable {
    final AtomicLong acked = new AtomicLong();
    final AtomicLong resent = new AtomicLong();
    final AtomicReference<Throwable> error = new AtomicReference<>();
    private final String bootstrap;

    Writer(String bootstrap) {
      this.bootstrap = bootstrap;
    }

    @Override
    public void run() {
      Properties p = new Properties();
      p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      p.put(ProducerConfig.ACKS_CONFIG, "all");
      // Not idempotent: Brook's producer state does not outlive a kill -9 the way the check needs, and a
      // retry's copy is a record of Brook's like any other (the verifier counts them apart).
      p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
      p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
      p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
      p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
      p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "500");
      p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
      p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
      long base = System.currentTimeMillis() - TimeUnit.HOURS.toMillis(1);
      int chunk = Math.max(1, rate / 10);
      long t0 = System.nanoTime();
      try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
        List<Integer> retry = new ArrayList<>();
        int next = 0;
        int attempts = 0;
        while (next < records || !retry.isEmpty()) {
          List<Integer> batch = new ArrayList<>(retry);
          retry.clear();
          while (batch.size() < chunk && next < records) {
            batch.add(next++);
          }
          List<Integer> failedNow = java.util.Collections.synchronizedList(new ArrayList<>());
          for (int seq : batch) {
            producer.send(ForwardKit.record(SOURCE, partitions, seq, base), (m, e) -> {
              if (e != null) {
                failedNow.add(seq);
              }
            });
          }
          producer.flush();
          acked.addAndGet(batch.size() - failedNow.size());
          if (!failedNow.isEmpty()) {
            resent.addAndGet(failedNow.size());
            retry.addAll(failedNow);
            if (++attempts > 100) {
              throw new IllegalStateException(failedNow.size() + " records still failing after 100 attempts");
            }
            Thread.sleep(500);
          }
          long due = t0 + (long) ((double) next / rate * 1e9);
          long wait = due - System.nanoTime();
          if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
          }
        }
      } catch (Throwable e) {
        error.set(e);
      }
    }
  }
}
