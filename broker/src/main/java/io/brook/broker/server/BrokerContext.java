package io.brook.broker.server;

import io.brook.broker.api.ApiSettings;
import io.brook.broker.api.Draining;
import io.brook.broker.config.BrokerConfig;
import io.brook.broker.config.BrokerKeys;
import io.brook.broker.config.CrossKeyRules;
import io.brook.broker.config.TopicDefaults;
import io.brook.broker.core.AckPollService;
import io.brook.broker.core.AckService;
import io.brook.broker.core.ShareGroupService;
import io.brook.broker.core.ConsumerGroupService;
import io.brook.broker.core.FetchService;
import io.brook.broker.core.ClassicGroupService;
import io.brook.broker.core.GroupService;
import io.brook.broker.core.ShareGroupAdmin;
import io.brook.broker.core.OffsetTimes;
import io.brook.broker.core.ProduceService;
import io.brook.broker.core.TopicAdmin;
import io.brook.broker.disk.ActiveWriters;
import io.brook.broker.disk.DiskGuard;
import io.brook.broker.disk.DiskLimits;
import io.brook.broker.disk.FreeSpace;
import io.brook.broker.durability.Flusher;
import io.brook.broker.groups.GroupContext;
import io.brook.broker.groups.GroupManager;
import io.brook.broker.groups.consumer.ConsumerSettings;
import io.brook.broker.metrics.BrokerMetrics;
import io.brook.broker.outbound.OutboundMemory;
import io.brook.broker.producers.ProducerIds;
import io.brook.broker.security.BrokerSecurity;
import io.brook.broker.storage.DataDirectoryLock;
import io.brook.broker.storage.LogFactory;
import io.brook.broker.kafka.apis.BrokerSettings;
import io.brook.broker.topics.BatchValidator;
import io.brook.broker.topics.Partition;
import io.brook.broker.topics.Retention;
import io.brook.broker.topics.RetentionHold;
import io.brook.broker.forward.Forwarder;
import io.brook.broker.disk.DiskState;
import io.brook.broker.disk.DiskStats;
import io.brook.broker.topics.TopicConfig;
import io.brook.broker.topics.TopicManager;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker's configuration, concluded once (Aeron's {@code Context.conclude()} is the model): the
 * config is logged, its rules between keys checked, then the data directory locked and every
 * component the endpoints share built, in the order they depend on each other. Nothing else reads
 * the config. {@link Broker} starts, drains and stops what this builds.
 */
final class BrokerContext {
  private static final Logger log = LoggerFactory.getLogger(BrokerContext.class);
  /** A partition appended to within this counts as an active writer for the disk guard's threshold. */
  private static final long ACTIVE_WRITER_WINDOW_MS = 60_000;

  final InstantSource clock;
  final long startedAtMs = System.currentTimeMillis();
  final BrokerSecurity security;
  final DataDirectoryLock lock;
  final Path dataDir;
  final InetSocketAddress grpcListen;
  final InetSocketAddress httpListen;
  /** http.cors.origins: browser origins the REST relay answers (empty: none). */
  final java.util.List<String> corsOrigins;
  /** Where the Kafka listener binds; empty when it is off (kafka.listen empty). */
  final Optional<InetSocketAddress> kafkaListen;
  /** kafka.listen was left at its default (localhost:9092), not set by the operator. */
  final boolean kafkaListenDefault;
  final Optional<InetSocketAddress> kafkaAdvertised;
  final int kafkaMaxInflight;
  final long kafkaMaxIdleMs;
  final int maxRequestBytes;
  final int maxConcurrentStreams;
  final long shutdownGraceMs;
  final long retentionIntervalMs;
  final long producerExpirationMs;
  final long producerMaintenanceMs;

  final ExecutorService grpcExecutor;
  final ExecutorService readExecutor;
  /** Group timeouts, producer upkeep, long-poll deadlines. */
  final ScheduledExecutorService timer;
  final TopicManager topics;
  final Retention retention;
  final Flusher flusher;
  final ProducerIds producerIds;
  final DiskGuard disk;
  final GroupManager groups;
  final OutboundMemory outbound;
  final ConnectionCounter connections = new ConnectionCounter();
  final Draining draining = new Draining();
  final BrokerMetrics metrics;
  final ApiSettings api;
  final ProduceService produce;
  final FetchService fetch;
  final TopicAdmin topicAdmin;
  final OffsetTimes offsetTimes;
  /** auto.create.topics.enable: Kafka Metadata requests create the topics they name. */
  final boolean autoCreateTopics;
  /** The broker's settings as Kafka's DescribeConfigs shows them. */
  final BrokerSettings brokerSettings;
  final GroupService groupService;
  final ClassicGroupService classicGroups;
  final ConsumerGroupService consumerGroups;
  final ShareGroupService shareGroups;
  final AckService ackService;
  /** HTTP consumers of ack groups (D70). */
  final AckPollService ackPolls;
  final ShareGroupAdmin shareAdmin;
  /** Store and forward to Kafka (D68); routes with no route configured do nothing. */
  final Forwarder forwarder;
  private final ActiveWriters<Partition> appending = new ActiveWriters<>(ACTIVE_WRITER_WINDOW_MS, System::nanoTime);

  /**
   * Checks {@code config} and builds the broker's components on it. A bad combination of keys, or
   * bad TLS or auth files, refuse it (ConfigException) before the data directory is locked.
   */
  static BrokerContext conclude(BrokerConfig config, LogFactory logFactory, InstantSource clock) throws IOException {
    log.info("Starting Brook with config:\n{}", config.describe().stripTrailing());
    if (!config.serviceLinks().isEmpty()) { // set aside, not silently dropped: one line names them
      TreeSet<String> services = new TreeSet<>(config.serviceLinks().values());
      log.info("Ignored {} Kubernetes service-link variables of {} {}, not broker settings: {}",
          config.serviceLinks().size(), services.size() == 1 ? "Service" : "Services", String.join(", ", services),
          String.join(", ", config.serviceLinks().keySet()));
    }
    CrossKeyRules.check(config);
    Forwarder.check(config.forwardRoutes());
    BrokerSecurity security = BrokerSecurity.load(config);
    DataDirectoryLock lock = DataDirectoryLock.acquire(config.get(BrokerKeys.DATA_DIR));
    try {
      return new BrokerContext(config, security, lock, logFactory, clock);
    } catch (IOException | RuntimeException e) {
      lock.close();
      throw e;
    }
  }

  private BrokerContext(BrokerConfig config, BrokerSecurity security, DataDirectoryLock lock, LogFactory logFactory,
      InstantSource clock) throws IOException {
    this.clock = clock;
    this.security = security;
    this.lock = lock;
    dataDir = config.get(BrokerKeys.DATA_DIR);
    grpcListen = config.get(BrokerKeys.GRPC_LISTEN);
    httpListen = config.get(BrokerKeys.HTTP_LISTEN);
    corsOrigins = config.get(BrokerKeys.HTTP_CORS_ORIGINS);
    kafkaListen = config.get(BrokerKeys.KAFKA_LISTEN);
    kafkaListenDefault = "default".equals(config.source(BrokerKeys.KAFKA_LISTEN));
    kafkaAdvertised = config.get(BrokerKeys.KAFKA_ADVERTISED);
    kafkaMaxInflight = config.get(BrokerKeys.KAFKA_CONNECTION_MAX_INFLIGHT);
    kafkaMaxIdleMs = config.get(BrokerKeys.KAFKA_CONNECTIONS_MAX_IDLE_MS);
    maxRequestBytes = config.get(BrokerKeys.MAX_REQUEST_BYTES);
    maxConcurrentStreams = config.get(BrokerKeys.GRPC_MAX_CONCURRENT_STREAMS);
    long minSessionTimeoutMs = config.get(BrokerKeys.GROUP_MIN_SESSION_TIMEOUT_MS);
    long maxSessionTimeoutMs = config.get(BrokerKeys.GROUP_MAX_SESSION_TIMEOUT_MS);
    shutdownGraceMs = config.get(BrokerKeys.SHUTDOWN_GRACE_MS);
    retentionIntervalMs = config.get(BrokerKeys.RETENTION_CHECK_INTERVAL_MS);
    producerExpirationMs = config.get(BrokerKeys.PRODUCER_ID_EXPIRATION_MS);
    producerMaintenanceMs = config.get(BrokerKeys.PRODUCER_MAINTENANCE_INTERVAL_MS);

    grpcExecutor = Executors.newFixedThreadPool(config.get(BrokerKeys.GRPC_THREADS), threads("grpc"));
    readExecutor = Executors.newFixedThreadPool(config.get(BrokerKeys.READ_THREADS), threads("read"));
    timer = Executors.newSingleThreadScheduledExecutor(threads("timer"));
    TopicConfig defaults = TopicDefaults.of(config);
    topics = new TopicManager(dataDir, defaults, config.get(BrokerKeys.DEFAULT_PARTITIONS), logFactory, clock);
    topics.limits(config.get(BrokerKeys.MAX_TOPICS), config.get(BrokerKeys.MAX_PARTITIONS));
    retention = new Retention(topics, clock);
    flusher = new Flusher(config.get(BrokerKeys.SYNC_GROUP_COMMIT), grpcExecutor);
    producerIds = new ProducerIds(dataDir);
    // The guard asks for the count of active writers from its first poll on, once the groups exist (D19).
    disk = new DiskGuard(FreeSpace.of(dataDir), new DiskLimits(config.get(BrokerKeys.DISK_FREE_MIN_BYTES),
        config.get(BrokerKeys.DISK_HEADROOM_BYTES), config.get(BrokerKeys.DISK_FREE_PER_WRITER_BYTES),
        config.get(BrokerKeys.DISK_CHECK_INTERVAL_MS)), this::activeWriters, DiskGuard.Transitions.LOG,
        dataDir.toAbsolutePath().toString());
    groups = new GroupManager(dataDir, new GroupContext(topics, clock, readExecutor, minSessionTimeoutMs,
        maxSessionTimeoutMs, config.get(BrokerKeys.GROUP_HEARTBEAT_INTERVAL_MS), disk), logFactory,
        config.get(BrokerKeys.GROUP_JOURNAL_COMPACT_EVENTS));
    groups.limit(config.get(BrokerKeys.MAX_GROUPS));
    groups.retention(config.get(BrokerKeys.GROUP_OFFSETS_RETENTION_MS));
    outbound = outboundMemory(config.get(BrokerKeys.OUTBOUND_MAX_BYTES),
        config.get(BrokerKeys.OUTBOUND_CLIENT_MAX_BYTES));
    metrics = new BrokerMetrics(topics, groups, disk, retention, connections::open, draining::open, outbound);
    api = new ApiSettings(config.get(BrokerKeys.PRODUCE_STREAM_MAX_INFLIGHT), readExecutor, draining, metrics.rpc());
    // The core both doors call.
    produce = new ProduceService(topics, new BatchValidator(config.get(BrokerKeys.MAX_BATCH_RECORDS)), disk, flusher,
        producerIds, clock);
    fetch = new FetchService(topics, config.get(BrokerKeys.FETCH_MAX_WAIT_MS), readExecutor, timer, draining);
    topicAdmin = new TopicAdmin(topics, disk);
    offsetTimes = new OffsetTimes(topics);
    autoCreateTopics = config.get(BrokerKeys.AUTO_CREATE_TOPICS_ENABLE);
    brokerSettings = BrokerSettings.of(config);
    groupService = new GroupService(groups, minSessionTimeoutMs, maxSessionTimeoutMs);
    shareAdmin = new ShareGroupAdmin(groups);
    classicGroups = new ClassicGroupService(groups, config.get(BrokerKeys.GROUP_INITIAL_REBALANCE_DELAY_MS));
    consumerGroups = new ConsumerGroupService(groups, new ConsumerSettings(
        config.get(BrokerKeys.GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS), config.get(BrokerKeys.GROUP_CONSUMER_SESSION_TIMEOUT_MS),
        config.get(BrokerKeys.GROUP_CONSUMER_MIGRATION_POLICY), config.get(BrokerKeys.GROUP_INITIAL_REBALANCE_DELAY_MS)));
    ackService = new AckService(groups);
    ackPolls = new AckPollService(groups, readExecutor, timer, config.get(BrokerKeys.FETCH_MAX_WAIT_MS),
        io.brook.broker.http.relay.AckRoutes.MAX_BYTES);
    shareGroups = new ShareGroupService(groups, fetch, readExecutor, timer, config.get(BrokerKeys.FETCH_MAX_WAIT_MS));
    forwarder = new Forwarder(config.forwardRoutes(), fetch, topicAdmin, groupService, ClusterIdFile.load(dataDir),
        config.get(BrokerKeys.GROUP_OFFSETS_RETENTION_MS));
    retention.hold(RetentionHold.whileSpace(this::retentionMayHold, p -> forwarder.keepFrom(p.topic().name(),
        p.index())));
  }

  /**
   * Whether a forward route that waits may keep records from retention (D68): only while free space is
   * a quarter above the produce threshold, so retention frees space before producers are refused (D19).
   */
  private boolean retentionMayHold() {
    DiskStats d = disk.stats();
    return d.state() == DiskState.OK && d.freeBytes() >= d.produceThresholdBytes() + d.produceThresholdBytes() / 4;
  }

  /** The disk guard's writers: partitions appended to lately plus every group's journal (D19). */
  private int activeWriters() {
    return appending.count(topics.allPartitions(), Partition::endOffset) + groups.list().size();
  }

  /**
   * The outbound memory bound: outbound.max.bytes, but at most half the JVM's direct memory (gRPC's
   * Netty writes answers from direct buffers), so reaching it slows clients instead of failing reads
   * with an OutOfMemoryError.
   */
  private static OutboundMemory outboundMemory(long limit, long clientLimit) {
    long direct = io.netty.util.internal.PlatformDependent.maxDirectMemory();
    if (direct > 0 && limit > direct / 2) {
      log.warn("{}={} is over half the JVM's direct memory ({} bytes): using {}", BrokerKeys.OUTBOUND_MAX_BYTES.name(),
          limit, direct, direct / 2);
      limit = direct / 2;
    }
    return new OutboundMemory(limit, clientLimit);
  }

  static ThreadFactory threads(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "brook-" + prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
