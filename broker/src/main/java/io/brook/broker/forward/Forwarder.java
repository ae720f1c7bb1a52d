package io.brook.broker.forward;

import io.brook.broker.config.ConfigException;
import io.brook.broker.config.ForwardRouteConfig;
import io.brook.broker.core.AnswerSize;
import io.brook.broker.core.BatchForm;
import io.brook.broker.core.FetchPosition;
import io.brook.broker.core.FetchQuery;
import io.brook.broker.core.FetchService;
import io.brook.broker.core.ForwardControl;
import io.brook.broker.core.ForwardRouteStatus;
import io.brook.broker.core.GroupService;
import io.brook.broker.core.OffsetLookup;
import io.brook.broker.core.PartitionRead;
import io.brook.broker.core.TopicAdmin;
import io.brook.broker.core.TopicInfo;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.TopicPartition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Store and forward (D68): each configured route's records go to a Kafka cluster, one thread and one
 * idempotent producer per route, the cursor in an internal offset group. Starts after the broker
 * recovered; stops before the groups and topics close, giving records in flight a moment to be
 * acknowledged and committed.
 */
public final class Forwarder implements ForwardControl, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Forwarder.class);

  private final Map<String, RouteRunner> runners = new LinkedHashMap<>();
  private final Map<String, Thread> threads = new LinkedHashMap<>();
  private final FetchService fetch;

  /**
   * Builds the routes ({@link #check}ed before); nothing runs before {@link #start}.
   */
  public Forwarder(List<ForwardRouteConfig> routes, FetchService fetch, TopicAdmin topics, GroupService groups,
      String clusterId, long offsetsRetentionMs) {
    this.fetch = fetch;
    OriginRecords origins = new OriginRecords(clusterId);
    RouteRunner.Sources sources = route -> sources(topics, route);
    // Often enough that group.offsets.retention.ms never expires a cursor, however long a route waits.
    long refreshMs = offsetsRetentionMs > 0 ? Math.max(1_000, Math.min(3_600_000, offsetsRetentionMs / 4)) : 3_600_000;
    for (ForwardRouteConfig route : routes) {
      runners.put(route.name(), new RouteRunner(route, fetch, sources, new RouteCursor(groups, route.name()),
          origins, () -> new KafkaTarget(route), refreshMs));
    }
  }

  /**
   * Checks every route's producer settings as kafka-clients reads them (types, values, the secrets
   * its config providers read), before the broker locks its data directory.
   *
   * @throws ConfigException naming the route
   */
  public static void check(List<ForwardRouteConfig> routes) {
    for (ForwardRouteConfig route : routes) {
      Map<String, Object> settings = KafkaTarget.producerConfig(route);
      String where = "bad forward route " + route.name() + " (forward." + route.name() + ".kafka.*): ";
      try {
        ProducerConfig resolved = new ProducerConfig(settings);
        for (String key : route.kafka().keySet()) {
          if (String.valueOf(resolved.originals().get(key)).contains("${")) {
            throw new ConfigException(where + key + " = " + route.kafka().get(key) + " did not resolve: the file, "
                + "directory, key or variable it names is missing");
          }
        }
        // The producer's own checks (timeouts that contradict each other, trust stores, JAAS) run when it
        // is made: make one now and close it, no connection is opened.
        new org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]>(settings).close(java.time.Duration.ZERO);
      } catch (ConfigException e) {
        throw e;
      } catch (RuntimeException e) {
        Throwable cause = e.getCause() != null && e.getMessage() != null && e.getMessage().startsWith("Failed to construct")
            ? e.getCause() : e;
        throw new ConfigException(where + cause.getMessage());
      }
    }
  }

  /** Starts every route's thread. */
  public void start() {
    runners.forEach((name, runner) -> {
      Thread t = new Thread(runner, "brook-forward-" + name);
      t.setDaemon(true);
      threads.put(name, t);
      t.start();
      log.info("Forward route {} started: {}", name, runner.route.summary());
    });
  }

  @Override
  public List<ForwardRouteStatus> routes() {
    List<ForwardRouteStatus> out = new ArrayList<>();
    runners.values().forEach(r -> out.add(status(r)));
    return out;
  }

  @Override
  public ForwardRouteStatus pause(String route) {
    RouteRunner r = runner(route);
    boolean durable;
    try {
      durable = r.setPaused(true);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BrokerException(BrokerError.INVALID_REQUEST, "interrupted while pausing route " + route);
    }
    if (!durable) {
      log.warn("Forward route {} paused until the broker restarts: it has no cursor yet to keep the pause with",
          route);
    } else {
      log.info("Forward route {} paused", route);
    }
    return status(r);
  }

  @Override
  public ForwardRouteStatus resume(String route) {
    RouteRunner r = runner(route);
    try {
      r.setPaused(false);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BrokerException(BrokerError.INVALID_REQUEST, "interrupted while resuming route " + route);
    }
    log.info("Forward route {} resumed", route);
    return status(r);
  }

  @Override
  public long keepFrom(String topic, int partition) {
    long keep = Long.MAX_VALUE;
    for (RouteRunner r : runners.values()) {
      if (r.route.retentionWaits() && r.route.matches(topic)) {
        Long position = r.position(new TopicPartition(topic, partition));
        keep = Math.min(keep, position == null ? 0 : position); // not found yet: keep it all
      }
    }
    return keep;
  }

  private RouteRunner runner(String route) {
    RouteRunner r = runners.get(route);
    if (r == null) {
      throw ForwardRouteStatus.unknown(route, runners.keySet());
    }
    return r;
  }

  private ForwardRouteStatus status(RouteRunner r) {
    long now = System.currentTimeMillis();
    long lag = 0;
    long oldest = Long.MAX_VALUE;
    List<ForwardRouteStatus.Cursor> cursors = new ArrayList<>();
    for (Map.Entry<TopicPartition, Long> e : new TreeMap<>(r.positions()).entrySet()) {
      TopicPartition tp = e.getKey();
      long position = e.getValue();
      OffsetLookup end = fetch.listOffset(tp.topic(), tp.partition(), null);
      if (end.error() != null) {
        continue; // deleted meanwhile
      }
      cursors.add(new ForwardRouteStatus.Cursor(tp.topic(), tp.partition(), position, end.endOffset()));
      if (position < end.endOffset()) {
        lag += end.endOffset() - Math.max(position, end.logStartOffset());
        oldest = Math.min(oldest, timestampAt(tp, Math.max(position, end.logStartOffset())));
      }
    }
    double lagSeconds = oldest == Long.MAX_VALUE ? 0 : Math.max(0, now - oldest) / 1000.0;
    RouteCounters c = r.counters;
    return new ForwardRouteStatus(r.route.name(), r.route.source(), r.route.target(), r.route.bootstrap(), r.state(),
        c.records(), c.bytes(), lag, lagSeconds, c.dropped(), c.errors(), c.lastError(), c.lastErrorAtMs(), cursors);
  }

  /** The timestamp of the record at {@code offset}, or Long.MAX_VALUE when it cannot be read. */
  private long timestampAt(TopicPartition tp, long offset) {
    List<PartitionRead> read = fetch.read(new FetchQuery(List.of(new FetchPosition(tp.topic(), tp.partition(), offset)),
        1, 1, BatchForm.RECORDS, 0), AnswerSize.unframed(1));
    return read.isEmpty() || read.get(0).records().isEmpty() ? Long.MAX_VALUE : read.get(0).records().get(0).timestamp();
  }

  /** A route's source topics, each with its partitions' log start offsets. */
  private static Map<String, long[]> sources(TopicAdmin topics, ForwardRouteConfig route) {
    List<TopicInfo> infos;
    if (route.source().endsWith("*")) {
      infos = topics.list().stream().filter(t -> route.matches(t.name())).toList();
    } else {
      try {
        infos = List.of(topics.describe(route.source()));
      } catch (BrokerException e) {
        if (e.error() != BrokerError.UNKNOWN_TOPIC) {
          throw e;
        }
        infos = List.of();
      }
    }
    Map<String, long[]> out = new LinkedHashMap<>();
    for (TopicInfo t : infos) {
      long[] starts = new long[t.partitions().size()];
      for (TopicInfo.PartitionInfo p : t.partitions()) {
        starts[p.partition()] = p.logStartOffset();
      }
      out.put(t.name(), starts);
    }
    return out;
  }

  /** Stops every route: records in flight get a moment to be acknowledged and committed. */
  @Override
  public void close() {
    runners.values().forEach(RouteRunner::close);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(RouteRunner.CLOSE_GRACE.toSeconds() + 2);
    for (Map.Entry<String, Thread> route : threads.entrySet()) {
      Thread t = route.getValue();
      try {
        t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        if (t.isAlive()) {
          runners.get(route.getKey()).abort(); // a flush waiting for a Kafka that is down ends, unacknowledged
          t.join(2_000);
        }
        if (t.isAlive()) {
          t.interrupt();
          t.join(1_000);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
