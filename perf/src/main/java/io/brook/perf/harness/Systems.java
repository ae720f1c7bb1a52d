package io.brook.perf.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The systems a run compares, each a broker process and a client. The long-lived brokers start when a
 * workload first needs them and stop at the end; the start and memory workloads ask for fresh ones.
 * Every broker gets the same heap (Kafka's own default, -Xms1g -Xmx1g) and data under {@code work}.
 * brook-kafka is Brook's broker driven by kafka-clients through its Kafka listener: the same shared
 * broker as brook (its listener is on), the same client code as kafka.
 */
final class Systems implements AutoCloseable {
  private final Path repo;
  private final Path work;
  private final String heap;
  private final Path jfr;
  private final Map<String, Server> servers = new LinkedHashMap<>();
  private final Map<String, SystemClient> clients = new LinkedHashMap<>();
  private final List<Server> fresh = new ArrayList<>();
  private int serial;

  /** jfr: a directory for a flight recording of every broker (JFR's profile settings), or null. */
  Systems(Path repo, Path work, String heap, Path jfr) {
    this.repo = repo;
    this.work = work;
    this.heap = heap;
    this.jfr = jfr;
  }

  /** The client of a system, its broker started first if needed. */
  SystemClient client(String system) throws Exception {
    SystemClient c = clients.get(system);
    if (c == null) {
      c = switch (system) {
        case "brook", "brook-no-group-commit" -> new BrookClient(system, shared(system));
        case "kafka" -> new KafkaClient(system, shared("kafka"), Map.of());
        case "brook-kafka" -> new KafkaClient(system, shared("brook"), Map.of());
        // Kafka forcing every write to the device, the peer of a SYNCED produce: the same node.
        case "kafka-flush" -> new KafkaClient(system, shared("kafka"), Map.of("flush.messages", "1"));
        default -> throw new IllegalArgumentException("unknown system " + system);
      };
      clients.put(system, c);
    }
    return c;
  }

  /** A client on a broker that is not this harness's shared one (fresh, started by the caller). */
  SystemClient clientOf(String system, Server server) {
    return system.startsWith("kafka") || system.equals("brook-kafka") ? new KafkaClient(system, server, Map.of())
        : new BrookClient(system, server);
  }

  /** The Brook checkout (bin/brook, perf/kafka.sh). */
  Path repo() {
    return repo;
  }

  private Server shared(String kind) throws Exception {
    Server s = servers.get(kind);
    if (s == null) {
      s = create(kind, work.resolve(kind), true);
      s.start();
      System.out.printf("brook-perf: %s started on %s (ready in %d ms)%n", kind, s.listeners(), s.readyMillis);
      servers.put(kind, s);
    }
    return s;
  }

  /** A broker of the system's kind in a new directory, not started; stopped and deleted by close(). */
  Server freshServer(String system, String tag) {
    Server s = create(system.startsWith("kafka") ? "kafka" : system, work.resolve(system + "-" + tag + "-" + (++serial)),
        false);
    fresh.add(s);
    return s;
  }

  private Server create(String kind, Path dir, boolean shared) {
    // Both systems' brokers get the same JVM options; a recording is written when the broker exits.
    String jvm = jfr == null ? heap : heap + " -XX:StartFlightRecording=filename=" + jfr.resolve(dir.getFileName()
        + ".jfr") + ",settings=profile,dumponexit=true";
    return switch (kind) {
      // The shared broker serves Kafka clients too (brook-kafka); a fresh one only when it is brook-kafka's,
      // so that the start and memory workloads measure Brook as they did before the Kafka door.
      case "brook" -> new BrookServer("brook", repo, dir, jvm, groupSettings(), shared);
      case "brook-kafka" -> new BrookServer(kind, repo, dir, jvm, groupSettings(), true);
      // One force per SYNCED request: the baseline group commit is measured against.
      case "brook-no-group-commit" -> new BrookServer(kind, repo, dir, jvm, List.of("sync.group.commit=false"), false);
      case "kafka" -> new KafkaServer("kafka", repo, dir, jvm);
      default -> throw new IllegalArgumentException("unknown system " + kind);
    };
  }

  /**
   * What the group workloads need of Brook: no initial rebalance delay, as perf/kafka.sh sets on Kafka
   * (Kafka's and Brook's default is 3000 ms), on every Brook broker a Kafka client may meet: the shared
   * one and brook-kafka's fresh ones. Without it a new group's first join waited 3 s on Brook and not on
   * Kafka (ConsumerPerformance's join: 3,420 ms against 339 ms).
   */
  private static List<String> groupSettings() {
    return List.of("group.initial.rebalance.delay.ms=0");
  }

  /** Stops a fresh broker and deletes its data. */
  void discard(Server s) {
    s.stop();
    fresh.remove(s);
    delete(s.dir);
  }

  static void delete(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (var files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      System.out.println("brook-perf: could not delete " + dir + ": " + e.getMessage());
    }
  }

  @Override
  public void close() {
    clients.values().forEach(SystemClient::close);
    for (Server s : new ArrayList<>(fresh)) {
      discard(s);
    }
    servers.values().forEach(Server::stop);
  }
}
