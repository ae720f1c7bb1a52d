package io.brook.broker.server;

import io.brook.broker.config.BrokerConfig;
import io.brook.broker.disk.DiskGuard;
import io.brook.broker.groups.GroupManager;
import io.brook.broker.metrics.BrokerMetrics;
import io.brook.broker.storage.LogFactory;
import io.brook.broker.storage.chronicle.ChronicleLog;
import io.brook.broker.topics.Partition;
import io.brook.broker.topics.Retention;
import io.brook.broker.core.ForwardControl;
import io.brook.broker.topics.Topic;
import io.brook.broker.topics.TopicManager;
import java.io.IOException;
import java.time.InstantSource;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running broker, on the components its {@link BrokerContext} built from the config: it starts
 * gRPC (health says NOT_SERVING and brook.v1 calls answer UNAVAILABLE) and HTTP, recovers the topics
 * and groups, schedules the background work, then reports SERVING; {@link #close()} drains and stops.
 */
public final class Broker implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Broker.class);
  /** How often group timeouts (sessions, rebalances, leases, delayed nacks) are checked. */
  private static final long GROUP_TICK_MS = 50;

  private final BrokerContext ctx;
  private final GrpcEndpoint grpc;
  private final HttpEndpoint http;
  private final KafkaEndpoint kafka;
  private final RetentionSchedule retention;
  private final AtomicBoolean closing = new AtomicBoolean();
  private volatile boolean ready;

  private Broker(BrokerContext ctx) {
    this.ctx = ctx;
    grpc = new GrpcEndpoint(ctx, this::notReadyReason);
    http = new HttpEndpoint(ctx, this::notReadyReason);
    kafka = new KafkaEndpoint(ctx);
    retention = new RetentionSchedule(ctx);
  }

  /** Starts a broker and returns once it is SERVING. */
  public static Broker start(BrokerConfig config) throws IOException {
    return start(config, ChronicleLog::open, InstantSource.system());
  }

  public static Broker start(BrokerConfig config, LogFactory logFactory, InstantSource clock) throws IOException {
    GrpcLogs.quietClientMistakes();
    BrokerContext ctx = BrokerContext.conclude(config, logFactory, clock);
    Broker broker;
    try {
      broker = new Broker(ctx);
    } catch (RuntimeException e) {
      ctx.lock.close();
      throw e;
    }
    log.info("Security: {}", ctx.security.summary());
    try {
      broker.grpc.start();
      broker.http.start(); // before recovery: probes see "recovering storage" meanwhile
      broker.recover();
      ctx.disk.start();
      log.info("Disk guard on {}", ctx.disk.summary());
      ctx.timer.scheduleWithFixedDelay(ctx.groups::tick, GROUP_TICK_MS, GROUP_TICK_MS, TimeUnit.MILLISECONDS);
      new ProducerUpkeep(ctx).schedule(ctx.timer);
      broker.retention.start();
      broker.kafka.start(); // after recovery: it has no readiness gate, its first answers see every topic
      broker.ready = true;
      broker.grpc.serving();
      ctx.forwarder.start();
      log.info("Brook ready: gRPC on {}:{}, HTTP on {}:{}, {}, data in {}", ctx.grpcListen.getHostString(),
          broker.port(), ctx.httpListen.getHostString(), broker.httpPort(), broker.kafka.describe(),
          ctx.dataDir.toAbsolutePath());
      return broker;
    } catch (IOException | RuntimeException e) {
      broker.close();
      throw e;
    }
  }

  private void recover() {
    long started = System.nanoTime();
    ctx.topics.recover();
    long recoveryMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    int partitions = ctx.topics.list().stream().mapToInt(Topic::partitionCount).sum();
    long records = ctx.topics.list().stream().flatMap(t -> t.partitions().stream())
        .mapToLong(p -> p.endOffset() - p.startOffset()).sum();
    log.info("Recovered {} topics, {} partitions, {} records in {} ms", ctx.topics.list().size(), partitions,
        records, recoveryMs);
    ctx.groups.recover();
  }

  public Retention retention() {
    return ctx.retention;
  }

  /**
   * Why the broker does not serve brook.v1 calls now, or null when it does: the reason of /readyz's
   * 503 and of the UNAVAILABLE answers ("the broker is ...").
   */
  public String notReadyReason() {
    if (closing.get()) {
      return "shutting down";
    }
    return ready ? null : "recovering storage";
  }

  public int port() {
    return grpc.port();
  }

  /** The HTTP server's bound port (useful when http.listen asked for port 0). */
  public int httpPort() {
    return http.port();
  }

  public BrokerMetrics metrics() {
    return ctx.metrics;
  }

  public TopicManager topics() {
    return ctx.topics;
  }

  public GroupManager groups() {
    return ctx.groups;
  }

  /** The store-and-forward routes (D68). */
  public ForwardControl forwarding() {
    return ctx.forwarder;
  }

  /** The disk guard: its stats are for the stats page and metrics. */
  public DiskGuard disk() {
    return ctx.disk;
  }

  public void awaitTermination() throws InterruptedException {
    grpc.awaitTermination();
  }

  /**
   * Stops serving: not ready, no new calls, streams told to reconnect (a produce stream after
   * answering what it read), calls in flight given shutdown.grace.ms to finish, then the group state
   * forced, the queues closed and the directory unlocked. Idempotent.
   */
  @Override
  public void close() {
    if (!closing.compareAndSet(false, true)) {
      return;
    }
    ready = false;
    long started = System.nanoTime();
    grpc.stopAccepting();
    kafka.close(); // no drain yet: a client's request in flight is retried on its next broker (D44)
    ctx.forwarder.close(); // records in flight get a moment to be acknowledged and committed
    ctx.draining.drainAll();
    ctx.groups.closeMembers(); // ack streams and pending joins end now, so the shutdown need not wait for them
    try {
      if (!grpc.awaitCalls(ctx.shutdownGraceMs)) {
        log.warn("Calls still open after the {} ms grace (shutdown.grace.ms) are cancelled", ctx.shutdownGraceMs);
        grpc.cancelCalls();
      } else {
        log.info("Calls in flight finished in {} ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      grpc.cancelCallsNow();
    }
    ctx.flusher.close(); // answers what still waits for a force with an error: the broker is stopping
    ctx.disk.close();
    ctx.timer.shutdownNow(); // no group ticks while the groups close
    retention.close(); // a pass in flight finishes before the logs close
    ctx.groups.close(); // forces the group journals: a clean stop loses no ack or commit
    ctx.topics.close(); // wakes waiters while their executors still run
    ctx.readExecutor.shutdownNow();
    ctx.grpcExecutor.shutdownNow();
    http.close(); // last: probes and scrapes answer ("shutting down") until the very end
    ctx.lock.close();
    log.info("Brook stopped");
  }

  /** For tests and tools: a partition by topic and index. */
  public Partition partition(String topic, int index) {
    return ctx.topics.get(topic).partition(index);
  }
}
