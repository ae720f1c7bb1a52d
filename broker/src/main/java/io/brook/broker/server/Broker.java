package io.brook.broker.server;

import io.brook.broker.api.AckGrpcService;
import io.brook.broker.api.AdminGrpcService;
import io.brook.broker.api.ApiSettings;
import io.brook.broker.api.ClientAddress;
import io.brook.broker.api.Draining;
import io.brook.broker.api.FetchGrpcService;
import io.brook.broker.api.GroupGrpcService;
import io.brook.broker.api.OutboundAccounts;
import io.brook.broker.api.ProduceGrpcService;
import io.brook.broker.api.ReadinessInterceptor;
import io.brook.broker.api.RequestGuard;
import io.brook.broker.config.BrokerConfig;
import io.brook.broker.config.BrokerKeys;
import io.brook.broker.disk.ActiveWriters;
import io.brook.broker.disk.DiskGuard;
import io.brook.broker.disk.DiskLimits;
import io.brook.broker.disk.FreeSpace;
import io.brook.broker.durability.Flusher;
import io.brook.broker.groups.GroupContext;
import io.brook.broker.groups.GroupManager;
import io.brook.broker.http.HttpAccess;
import io.brook.broker.http.HttpRoutes;
import io.brook.broker.http.HttpServer;
import io.brook.broker.http.HttpTls;
import io.brook.broker.http.StatsSource;
import io.brook.broker.metrics.BrokerMetrics;
import io.brook.broker.outbound.OutboundMemory;
import io.brook.broker.producers.ProducerIds;
import io.brook.broker.security.BrokerSecurity;
import io.brook.broker.storage.DataDirectoryLock;
import io.brook.broker.storage.LogFactory;
import io.brook.broker.storage.chronicle.ChronicleLog;
import io.brook.broker.topics.Partition;
import io.brook.broker.topics.Retention;
import io.brook.broker.topics.Topic;
import io.brook.broker.topics.TopicConfig;
import io.brook.broker.topics.TopicManager;
import io.brook.protocol.v1.AckServiceGrpc;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.FetchServiceGrpc;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running broker: it locks the data directory, starts gRPC (health says NOT_SERVING and brook.v1
 * calls answer UNAVAILABLE), recovers the topics, then reports SERVING.
 */
public final class Broker implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Broker.class);
  private static final List<String> SERVICES = List.of("", ProduceServiceGrpc.SERVICE_NAME,
      FetchServiceGrpc.SERVICE_NAME, AdminServiceGrpc.SERVICE_NAME, GroupServiceGrpc.SERVICE_NAME,
      AckServiceGrpc.SERVICE_NAME);
  /** How often group timeouts (sessions, rebalances, leases, delayed nacks) are checked. */
  private static final long GROUP_TICK_MS = 50;
  /** A partition appended to within this counts as an active writer for the disk guard's threshold. */
  private static final long ACTIVE_WRITER_WINDOW_MS = 60_000;

  private final DataDirectoryLock lock;
  private final AtomicBoolean closing = new AtomicBoolean();
  private final TopicManager topics;
  private final GroupManager groups;
  private final Server server;
  private final HealthStatusManager health;
  private final ExecutorService grpcExecutor;
  private final ExecutorService readExecutor;
  private final ScheduledExecutorService timer;
  /** Its own thread: deleting files must not delay group timeouts on the timer. */
  private final ScheduledExecutorService retentionThread;
  private final Retention retention;
  private final long retentionIntervalMs;
  private final Flusher flusher;
  private final ProducerIds producerIds;
  private final DiskGuard disk;
  private final long producerExpirationMs;
  private final long producerMaintenanceMs;
  private final InstantSource clock;
  private final Draining draining = new Draining();
  private final long shutdownGraceMs;
  private final BrokerSecurity security;
  private volatile boolean ready;
  private final ConnectionCounter connections = new ConnectionCounter();
  private final BrokerMetrics metrics;
  private final BrokerConfig config;
  private final long startedAtMs;
  private volatile HttpServer http;
  private final OutboundMemory outbound;

  private Broker(BrokerConfig config, LogFactory logFactory, InstantSource clock) throws IOException {
    Path dataDir = config.get(BrokerKeys.DATA_DIR);
    security = BrokerSecurity.load(config); // bad TLS or auth files refuse the start before the lock
    lock = DataDirectoryLock.acquire(dataDir);
    try {
      grpcExecutor = Executors.newFixedThreadPool(config.get(BrokerKeys.GRPC_THREADS), threads("grpc"));
      readExecutor = Executors.newFixedThreadPool(config.get(BrokerKeys.READ_THREADS), threads("read"));
      timer = Executors.newSingleThreadScheduledExecutor(threads("timer"));
      retentionThread = Executors.newSingleThreadScheduledExecutor(threads("retention"));
      TopicConfig defaults = TopicConfig.defaults(config.get(BrokerKeys.DEFAULT_RETENTION_MS),
          config.get(BrokerKeys.DEFAULT_RETENTION_BYTES), config.get(BrokerKeys.DEFAULT_SEGMENT_ROLL),
          config.get(BrokerKeys.DEFAULT_MAX_MESSAGE_BYTES));
      topics = new TopicManager(dataDir, defaults, config.get(BrokerKeys.DEFAULT_PARTITIONS), logFactory, clock);
      topics.limits(config.get(BrokerKeys.MAX_TOPICS), config.get(BrokerKeys.MAX_PARTITIONS));
      retention = new Retention(topics, clock);
      retentionIntervalMs = config.get(BrokerKeys.RETENTION_CHECK_INTERVAL_MS);
      flusher = new Flusher(config.get(BrokerKeys.SYNC_GROUP_COMMIT), grpcExecutor);
      producerIds = new ProducerIds(dataDir);
      disk = diskGuard(config, dataDir);
      groups = new GroupManager(dataDir, new GroupContext(topics, clock, readExecutor,
          config.get(BrokerKeys.GROUP_MIN_SESSION_TIMEOUT_MS), config.get(BrokerKeys.GROUP_MAX_SESSION_TIMEOUT_MS),
          config.get(BrokerKeys.GROUP_HEARTBEAT_INTERVAL_MS), disk), logFactory,
          config.get(BrokerKeys.GROUP_JOURNAL_COMPACT_EVENTS));
      groups.limit(config.get(BrokerKeys.MAX_GROUPS));
      outbound = outboundMemory(config);
      OutboundAccounts accounts = new OutboundAccounts(outbound);
      metrics = new BrokerMetrics(topics, groups, disk, retention, connections::open, draining::open, outbound);
      ApiSettings settings = new ApiSettings(config.get(BrokerKeys.MAX_BATCH_RECORDS),
          config.get(BrokerKeys.PRODUCE_STREAM_MAX_INFLIGHT), config.get(BrokerKeys.FETCH_MAX_WAIT_MS), clock,
          readExecutor, timer, flusher, producerIds, draining, metrics.rpc());
      shutdownGraceMs = config.get(BrokerKeys.SHUTDOWN_GRACE_MS);
      producerExpirationMs = config.get(BrokerKeys.PRODUCER_ID_EXPIRATION_MS);
      producerMaintenanceMs = config.get(BrokerKeys.PRODUCER_MAINTENANCE_INTERVAL_MS);
      this.clock = clock;
      this.config = config;
      startedAtMs = System.currentTimeMillis();
      health = new HealthStatusManager();
      SERVICES.forEach(s -> health.setStatus(s, ServingStatus.NOT_SERVING));
      ReadinessInterceptor gate = new ReadinessInterceptor(this::notReadyReason);
      ClientAddress address = new ClientAddress();
      InetSocketAddress listen = config.get(BrokerKeys.GRPC_LISTEN);
      NettyServerBuilder builder = NettyServerBuilder.forAddress(
          new InetSocketAddress(listen.getHostString(), listen.getPort()));
      security.tls().ifPresent(tls -> builder.sslContext(tls.context()));
      server = builder
          .executor(grpcExecutor)
          .addTransportFilter(connections)
          .addTransportFilter(accounts)
          .intercept(accounts)
          .intercept(metrics.rpc()) // server-wide, so it sees what every other interceptor answers
          .maxInboundMessageSize(config.get(BrokerKeys.MAX_REQUEST_BYTES))
          .maxConcurrentCallsPerConnection(config.get(BrokerKeys.GRPC_MAX_CONCURRENT_STREAMS))
          // Accept the clients' keepalive pings (grpc-java and grpc-go allow 10 s at the least).
          .permitKeepAliveTime(5, TimeUnit.SECONDS)
          .permitKeepAliveWithoutCalls(true)
          .keepAliveTime(60, TimeUnit.SECONDS)
          .keepAliveTimeout(20, TimeUnit.SECONDS)
          .addService(api(new ProduceGrpcService(topics, settings, disk, accounts), withAuth(gate)))
          .addService(api(new FetchGrpcService(topics, settings, accounts), withAuth(gate)))
          .addService(api(new AdminGrpcService(topics, disk), withAuth(gate)))
          .addService(api(new GroupGrpcService(groups,
              config.get(BrokerKeys.GROUP_MIN_SESSION_TIMEOUT_MS), config.get(BrokerKeys.GROUP_MAX_SESSION_TIMEOUT_MS)),
              withAuth(address, gate)))
          .addService(api(new AckGrpcService(groups, draining, accounts), withAuth(address, gate)))
          .addService(health.getHealthService()) // no credentials: Kubernetes probes
          .addService(ServerInterceptors.intercept(ProtoReflectionServiceV1.newInstance(), withAuth()))
          .build();
    } catch (RuntimeException e) {
      lock.close();
      throw e;
    }
  }

  /**
   * The outbound memory bound: outbound.max.bytes, but at most half the JVM's direct memory (gRPC's
   * Netty writes answers from direct buffers), so reaching it slows clients instead of failing reads
   * with an OutOfMemoryError.
   */
  private static OutboundMemory outboundMemory(BrokerConfig config) {
    long limit = config.get(BrokerKeys.OUTBOUND_MAX_BYTES);
    long direct = io.netty.util.internal.PlatformDependent.maxDirectMemory();
    if (direct > 0 && limit > direct / 2) {
      log.warn("{}={} is over half the JVM's direct memory ({} bytes): using {}", BrokerKeys.OUTBOUND_MAX_BYTES.name(),
          limit, direct, direct / 2);
      limit = direct / 2;
    }
    return new OutboundMemory(limit, config.get(BrokerKeys.OUTBOUND_CLIENT_MAX_BYTES));
  }

  /** The interceptors with authentication and authorization last, so that they run first (when auth is on). */
  private ServerInterceptor[] withAuth(ServerInterceptor... inner) {
    List<ServerInterceptor> all = new java.util.ArrayList<>(List.of(inner));
    security.interceptor().ifPresent(all::add);
    return all.toArray(ServerInterceptor[]::new);
  }

  /** A brook.v1 service behind its interceptors, with malformed requests answered INVALID_ARGUMENT. */
  private static ServerServiceDefinition api(BindableService service, ServerInterceptor... interceptors) {
    return ServerInterceptors.intercept(RequestGuard.guard(service.bindService()), interceptors);
  }

  /**
   * The disk guard of the data directory's filesystem: active writers are the partitions appended
   * to lately plus every group's journal (D19). It reads free space once now, before any write.
   */
  private DiskGuard diskGuard(BrokerConfig config, Path dataDir) throws IOException {
    DiskLimits limits = new DiskLimits(config.get(BrokerKeys.DISK_FREE_MIN_BYTES),
        config.get(BrokerKeys.DISK_HEADROOM_BYTES), config.get(BrokerKeys.DISK_FREE_PER_WRITER_BYTES),
        config.get(BrokerKeys.DISK_CHECK_INTERVAL_MS));
    ActiveWriters<Partition> appending = new ActiveWriters<>(ACTIVE_WRITER_WINDOW_MS, System::nanoTime);
    // groups is assigned after the guard: until then (recovery) only partitions count.
    return new DiskGuard(FreeSpace.of(dataDir), limits, () -> appending.count(topics.allPartitions(),
        Partition::endOffset) + (groups == null ? 0 : groups.list().size()), DiskGuard.Transitions.LOG,
        dataDir.toAbsolutePath().toString());
  }

  /** Starts a broker and returns once it is SERVING. */
  public static Broker start(BrokerConfig config) throws IOException {
    return start(config, ChronicleLog::open, InstantSource.system());
  }

  public static Broker start(BrokerConfig config, LogFactory logFactory, InstantSource clock) throws IOException {
    log.info("Starting Brook with config:\n{}", config.describe().stripTrailing());
    if (!config.serviceLinks().isEmpty()) { // set aside, not silently dropped: one line names them
      TreeSet<String> services = new TreeSet<>(config.serviceLinks().values());
      log.info("Ignored {} Kubernetes service-link variables of {} {}, not broker settings: {}",
          config.serviceLinks().size(), services.size() == 1 ? "Service" : "Services", String.join(", ", services),
          String.join(", ", config.serviceLinks().keySet()));
    }
    GrpcLogs.quietClientMistakes();
    Broker broker = new Broker(config, logFactory, clock);
    log.info("Security: {}", broker.security.summary());
    try {
      broker.server.start();
      broker.startHttp(broker.security::httpAllowed); // before recovery: probes see "recovering storage" meanwhile
      long started = System.nanoTime();
      broker.topics.recover();
      long recoveryMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      int partitions = broker.topics.list().stream().mapToInt(Topic::partitionCount).sum();
      long records = broker.topics.list().stream().flatMap(t -> t.partitions().stream())
          .mapToLong(p -> p.endOffset() - p.startOffset()).sum();
      log.info("Recovered {} topics, {} partitions, {} records in {} ms", broker.topics.list().size(), partitions,
          records, recoveryMs);
      broker.groups.recover();
      broker.disk.start();
      log.info("Disk guard on {}", broker.disk.summary());
      broker.timer.scheduleWithFixedDelay(broker.groups::tick, GROUP_TICK_MS, GROUP_TICK_MS, TimeUnit.MILLISECONDS);
      broker.timer.scheduleWithFixedDelay(broker::maintainProducers, broker.producerMaintenanceMs,
          broker.producerMaintenanceMs, TimeUnit.MILLISECONDS);
      broker.retentionThread.scheduleWithFixedDelay(broker::applyRetention, 0, broker.retentionIntervalMs,
          TimeUnit.MILLISECONDS);
      broker.ready = true;
      SERVICES.forEach(s -> broker.health.setStatus(s, ServingStatus.SERVING));
      log.info("Brook ready: gRPC on {}:{}, HTTP on {}:{}, data in {}",
          config.get(BrokerKeys.GRPC_LISTEN).getHostString(), broker.port(),
          config.get(BrokerKeys.HTTP_LISTEN).getHostString(), broker.httpPort(),
          config.get(BrokerKeys.DATA_DIR).toAbsolutePath());
      return broker;
    } catch (IOException | RuntimeException e) {
      broker.close();
      throw e;
    }
  }

  private void startHttp(HttpAccess access) throws IOException {
    InetSocketAddress listen = config.get(BrokerKeys.HTTP_LISTEN);
    String version = Broker.class.getPackage().getImplementationVersion();
    HttpRoutes routes = new HttpRoutes(this::notReadyReason, metrics, new StatsSource(version == null ? "dev" : version,
        startedAtMs, topics, groups, disk, connections::open), access);
    http = HttpServer.start(listen, HttpTls.context(security.tls()), routes, outbound);
    log.info("HTTP on {}://{}:{} (/healthz /readyz /metrics /stats)", http.scheme(), listen.getHostString(),
        http.port());
  }

  private void applyRetention() {
    try {
      retention.run();
    } catch (RuntimeException e) { // a scheduled task that throws is never run again
      log.warn("Retention pass failed: {}", e.toString());
    }
  }

  public Retention retention() {
    return retention;
  }

  /** Expires idle producers and snapshots producer state, so neither memory nor recovery grows. */
  private void maintainProducers() {
    try {
      long cutoff = clock.millis() - producerExpirationMs;
      int expired = producerIds.expire(cutoff);
      boolean snapshots = disk.metadataAllowed(); // the snapshot plus the log rebuild the state: it can wait
      for (Partition p : topics.allPartitions()) {
        expired += p.expireProducers(cutoff);
        if (snapshots) {
          p.snapshotProducers();
        }
      }
      if (expired > 0) {
        log.info("Expired {} idle producer entries (producer.id.expiration.ms={})", expired, producerExpirationMs);
      }
    } catch (RuntimeException e) {
      log.warn("Producer maintenance failed: {}", e.toString());
    }
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
    return server.getPort();
  }

  /** The HTTP server's bound port (useful when http.listen asked for port 0). */
  public int httpPort() {
    return http.port();
  }

  public BrokerMetrics metrics() {
    return metrics;
  }

  public TopicManager topics() {
    return topics;
  }

  public GroupManager groups() {
    return groups;
  }

  /** The disk guard: its stats are for the stats page and metrics. */
  public DiskGuard disk() {
    return disk;
  }

  public void awaitTermination() throws InterruptedException {
    server.awaitTermination();
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
    health.enterTerminalState();
    long started = System.nanoTime();
    server.shutdown();
    draining.drainAll();
    groups.closeMembers(); // ack streams and pending joins end now, so the shutdown need not wait for them
    try {
      if (!server.awaitTermination(shutdownGraceMs, TimeUnit.MILLISECONDS)) {
        log.warn("Calls still open after the {} ms grace (shutdown.grace.ms) are cancelled", shutdownGraceMs);
        server.shutdownNow();
        server.awaitTermination(2, TimeUnit.SECONDS);
      } else {
        log.info("Calls in flight finished in {} ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.shutdownNow();
    }
    flusher.close(); // answers what still waits for a force with an error: the broker is stopping
    disk.close();
    timer.shutdownNow(); // no group ticks while the groups close
    retentionThread.shutdownNow();
    awaitQuietly(retentionThread); // a pass in flight finishes before the logs close
    groups.close(); // forces the group journals: a clean stop loses no ack or commit
    topics.close(); // wakes waiters while their executors still run
    readExecutor.shutdownNow();
    grpcExecutor.shutdownNow();
    if (http != null) { // last: probes and scrapes answer ("shutting down") until the very end
      http.close();
    }
    lock.close();
    log.info("Brook stopped");
  }

  private static void awaitQuietly(ExecutorService executor) {
    try {
      executor.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static ThreadFactory threads(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "brook-" + prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** For tests and tools: a partition by topic and index. */
  public Partition partition(String topic, int index) {
    return topics.get(topic).partition(index);
  }
}
