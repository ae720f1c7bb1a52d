package io.brook.broker.config;

import io.brook.broker.groups.consumer.MigrationPolicy;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.topics.TopicConfig;
import io.brook.broker.topics.TopicManager;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Every broker setting, with its default. Later features add keys here and nowhere else. */
public final class BrokerKeys {
  private BrokerKeys() {}

  public static final ConfigKey<Path> DATA_DIR = new ConfigKey<>("data.dir", "data", Parsers::path,
      "Directory holding all topics; locked exclusively while the broker runs.", false);
  public static final ConfigKey<InetSocketAddress> GRPC_LISTEN = new ConfigKey<>("grpc.listen", "localhost:7070",
      Parsers::hostPort, "host:port the gRPC server listens on (port 0: any free port).", false);
  public static final ConfigKey<Integer> GRPC_THREADS = new ConfigKey<>("grpc.threads",
      String.valueOf(Math.max(4, 2 * Runtime.getRuntime().availableProcessors())), Parsers::positiveInt,
      "Threads that run gRPC calls and the Kafka listener's requests (appends run on them; fetches that wait park no "
      + "thread).", false);
  public static final ConfigKey<Integer> READ_THREADS = new ConfigKey<>("read.threads",
      String.valueOf(Math.max(2, Runtime.getRuntime().availableProcessors())), Parsers::positiveInt,
      "Threads that serve woken long polls and tail streams.", false);
  public static final ConfigKey<Integer> MAX_REQUEST_BYTES = new ConfigKey<>("max.request.bytes",
      String.valueOf(8 << 20), Parsers::positiveInt,
      "Largest gRPC message the broker accepts (a produce request with all its batches), and the largest Kafka "
      + "request frame (a larger one closes that connection).", false);
  public static final ConfigKey<Integer> GRPC_MAX_CONCURRENT_STREAMS = new ConfigKey<>(
      "grpc.max.concurrent.streams", "1000", Parsers::positiveInt,
      "Calls (HTTP/2 streams) one client connection may have open at once; the client waits, or is refused "
      + "(REFUSED_STREAM), beyond it.", false);
  public static final ConfigKey<Long> OUTBOUND_MAX_BYTES = new ConfigKey<>("outbound.max.bytes",
      String.valueOf(256L << 20), s -> Parsers.longAtLeast(s, 1 << 20),
      "Most bytes of answers (gRPC, Kafka and HTTP) handed to the network and not yet written to a socket, over all "
      + "clients: what clients that read slowly or not at all make the broker hold. At most half the JVM's direct "
      + "memory (lowered at start if above). Beyond it senders wait their turn, round robin across clients.", false);
  public static final ConfigKey<Long> OUTBOUND_CLIENT_MAX_BYTES = new ConfigKey<>("outbound.client.max.bytes",
      String.valueOf(32L << 20), s -> Parsers.longAtLeast(s, 1 << 20),
      "The same for one client connection, so that one client that stops reading cannot take what the others "
      + "need: its further answers wait until it reads (one answer always fits, however large). A Kafka Fetch answer is cut "
      + "to it.", false);
  public static final ConfigKey<Integer> MAX_TOPICS = new ConfigKey<>("max.topics", "1000", Parsers::positiveInt,
      "Most topics the broker holds (dead-letter topics included); creating more is refused with "
      + "RESOURCE_EXHAUSTED.", false);
  public static final ConfigKey<Integer> MAX_PARTITIONS = new ConfigKey<>("max.partitions", "2000",
      Parsers::positiveInt, "Most partitions over all topics; creating topics or partitions beyond it is refused "
      + "with RESOURCE_EXHAUSTED. Each open partition costs about 140 KiB of heap.", false);
  public static final ConfigKey<Integer> MAX_GROUPS = new ConfigKey<>("max.groups", "1000", Parsers::positiveInt,
      "Most consumer groups (created explicitly or on first use); more are refused with RESOURCE_EXHAUSTED. "
      + "Each group's journal costs about 140 KiB of heap.", false);
  public static final ConfigKey<Integer> MAX_BATCH_RECORDS = new ConfigKey<>("max.batch.records", "100000",
      Parsers::positiveInt, "Most records one produce batch may hold.", false);
  public static final ConfigKey<Integer> PRODUCE_STREAM_MAX_INFLIGHT = new ConfigKey<>("produce.stream.max.inflight",
      "32", Parsers::positiveInt,
      "Requests a produce stream may have read but not yet answered; the broker reads no more until one is answered.",
      false);
  public static final ConfigKey<Long> FETCH_MAX_WAIT_MS = new ConfigKey<>("fetch.max.wait.ms", "30000",
      s -> Parsers.longAtLeast(s, 0), "Upper bound on a fetch's max_wait_ms (longer waits are cut to this).", false);
  public static final ConfigKey<Boolean> SYNC_GROUP_COMMIT = new ConfigKey<>("sync.group.commit", "true",
      Parsers::bool, "SYNCED produces waiting at the same time share one force (group commit); false forces "
      + "once per request (a baseline for benchmarks).", false);
  public static final ConfigKey<Long> PRODUCER_ID_EXPIRATION_MS = new ConfigKey<>("producer.id.expiration.ms",
      "86400000", s -> Parsers.longAtLeast(s, 1), "An idempotent producer that has not written for this long is "
      + "forgotten (its next batch must start a new producer); every CLI run is a new producer.", false);
  public static final ConfigKey<Long> PRODUCER_MAINTENANCE_INTERVAL_MS = new ConfigKey<>(
      "producer.maintenance.interval.ms", "30000", s -> Parsers.longAtLeast(s, 10),
      "How often producer state is snapshotted (so recovery reads the log only after the snapshot) and expired "
      + "producers are removed.", false);
  public static final ConfigKey<Integer> DEFAULT_PARTITIONS = new ConfigKey<>("default.partitions", "1",
      s -> Parsers.intBetween(s, 1, TopicManager.MAX_PARTITIONS),
      "Partitions of a topic created without a count (at most " + TopicManager.MAX_PARTITIONS + ", a topic's most).",
      false);
  public static final ConfigKey<Boolean> AUTO_CREATE_TOPICS_ENABLE = new ConfigKey<>("auto.create.topics.enable",
      "true", Parsers::bool, "A Kafka client's Metadata request that allows it creates the topics it names that do "
      + "not exist (default.partitions, the topic defaults), within max.topics, max.partitions and the disk guard, as "
      + "Kafka does by default; off: such topics are unknown until created (a Kafka producer then waits "
      + "max.block.ms, 60 s, and fails). Kafka's listener only: gRPC never creates topics on use.", false);
  public static final ConfigKey<SegmentRoll> DEFAULT_SEGMENT_ROLL = new ConfigKey<>("default.segment.roll", "1h",
      SegmentRoll::parse, "segment.roll of topics created without one.", false);
  public static final ConfigKey<Long> DEFAULT_RETENTION_MS = new ConfigKey<>("default.retention.ms",
      String.valueOf(TopicConfig.DEFAULT_RETENTION_MS), s -> Parsers.longAtLeast(s, -1),
      "retention.ms of topics created without one (-1: forever).", false);
  public static final ConfigKey<Long> DEFAULT_RETENTION_BYTES = new ConfigKey<>("default.retention.bytes", "-1",
      s -> Parsers.longAtLeast(s, -1), "retention.bytes of topics created without one (-1: unlimited).", false);
  public static final ConfigKey<Long> RETENTION_CHECK_INTERVAL_MS = new ConfigKey<>("retention.check.interval.ms",
      "30000", s -> Parsers.longAtLeast(s, 10), "How often retention.ms and retention.bytes are applied: whole "
      + "segments past them are deleted in the background.", false);
  public static final ConfigKey<Integer> DEFAULT_MAX_RECORD_BYTES = new ConfigKey<>("default.max.record.bytes",
      String.valueOf(1 << 20), Parsers::positiveInt, "max.record.bytes of topics created without one: the largest "
      + "record of a batch produced over gRPC (key + value + header names and values). Before issue 25 this was "
      + "default.max.message.bytes.", false);
  public static final ConfigKey<Integer> DEFAULT_MAX_MESSAGE_BYTES = new ConfigKey<>("default.max.message.bytes",
      String.valueOf(TopicConfig.DEFAULT_MAX_MESSAGE_BYTES), Parsers::positiveInt, "max.message.bytes of topics "
      + "created without one, with Kafka's meaning: the largest record batch produced over Kafka, as stored (after "
      + "compression). Until issue 25 this key was the per-record limit, now default.max.record.bytes: set alone, "
      + "the broker logs a warning at start.", false);

  public static final ConfigKey<Long> GROUP_MIN_SESSION_TIMEOUT_MS = new ConfigKey<>(
      "group.min.session.timeout.ms", "6000", s -> Parsers.longAtLeast(s, 100),
      "The shortest session timeout a group member may ask for (like Kafka's).", false);
  public static final ConfigKey<Long> GROUP_MAX_SESSION_TIMEOUT_MS = new ConfigKey<>(
      "group.max.session.timeout.ms", "1800000", s -> Parsers.longAtLeast(s, 100),
      "The longest session timeout a group member may ask for (like Kafka's).", false);
  public static final ConfigKey<Long> GROUP_HEARTBEAT_INTERVAL_MS = new ConfigKey<>(
      "group.heartbeat.interval.ms", "3000", s -> Parsers.longAtLeast(s, 1),
      "The longest interval between an offset-mode member's heartbeats (like KIP-848's "
      + "group.consumer.heartbeat.interval.ms): each member heartbeats every min(this, its session timeout / 3).",
      false);
  public static final ConfigKey<Long> GROUP_INITIAL_REBALANCE_DELAY_MS = new ConfigKey<>(
      "group.initial.rebalance.delay.ms", "3000", s -> Parsers.longAtLeast(s, 0),
      "How long the first rebalance of an empty Kafka classic group waits for more members (Kafka's key, Kafka's "
      + "default): each member joining meanwhile extends the wait by this much, up to the members' rebalance "
      + "timeout. 0: the first member's join completes at once.", false);
  public static final ConfigKey<Integer> GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS = new ConfigKey<>(
      "group.consumer.heartbeat.interval.ms", "5000", Parsers::positiveInt,
      "How often a Kafka consumer of the KIP-848 protocol (group.protocol=consumer) heartbeats: the broker tells "
      + "it in each answer (as Kafka's key of this name).", false);
  public static final ConfigKey<Long> GROUP_CONSUMER_SESSION_TIMEOUT_MS = new ConfigKey<>(
      "group.consumer.session.timeout.ms", "45000", s -> Parsers.longAtLeast(s, 100),
      "A Kafka consumer of the KIP-848 protocol that sends no heartbeat for this long is removed from its group "
      + "and its partitions go to the others (as Kafka's key of this name; the broker decides it, not the client).",
      false);
  public static final ConfigKey<MigrationPolicy> GROUP_CONSUMER_MIGRATION_POLICY = new ConfigKey<>(
      "group.consumer.migration.policy", "bidirectional", s -> Parsers.enumValue(MigrationPolicy.class, s),
      "Kafka's key and default: upgrade: a classic group with members becomes a KIP-848 group when a consumer with "
      + "group.protocol=consumer joins it; downgrade: a KIP-848 group whose last such consumer left goes back to "
      + "classic; bidirectional: both; disabled: neither, and a classic consumer cannot join a KIP-848 group with "
      + "members either (INCONSISTENT_GROUP_PROTOCOL). Without upgrade, a KIP-848 join to a classic group with "
      + "members is refused GROUP_ID_NOT_FOUND, as Kafka.", false);
  public static final ConfigKey<Long> GROUP_JOURNAL_COMPACT_EVENTS = new ConfigKey<>(
      "group.journal.compact.events", "100000", s -> Parsers.longAtLeast(s, 10),
      "A group's journal (commits, deliveries, settles) is rewritten as a snapshot after this many events.",
      false);
  public static final ConfigKey<Long> GROUP_OFFSETS_RETENTION_MS = new ConfigKey<>(
      "group.offsets.retention.ms", "604800000", s -> Parsers.longAtLeast(s, -1),
      "An offset-mode group with no members is deleted, with its committed offsets, once this long passed since "
          + "its last member left or its last commit (Kafka's offsets.retention.minutes, 7 days); -1: never. A group "
          + "a Kafka client created goes as soon as its last member leaves if it has no committed offsets.", false);

  // Full disk (D19): produce stops at the threshold, metadata writes at the headroom below it.
  public static final ConfigKey<Long> DISK_FREE_MIN_BYTES = new ConfigKey<>("disk.free.min.bytes",
      String.valueOf(256L << 20), s -> Parsers.longAtLeast(s, 0), "Produce is refused (RESOURCE_EXHAUSTED) while "
      + "the data directory's filesystem has less free space than max(this, disk.headroom.bytes + active writers "
      + "x disk.free.per.writer.bytes).", false);
  public static final ConfigKey<Long> DISK_HEADROOM_BYTES = new ConfigKey<>("disk.headroom.bytes",
      String.valueOf(64L << 20), s -> Parsers.longAtLeast(s, 0), "Free space kept for commits, acks, dead letters "
      + "and snapshots while produce is refused; under it those are refused too (fetches go on).", false);
  public static final ConfigKey<Long> DISK_FREE_PER_WRITER_BYTES = new ConfigKey<>("disk.free.per.writer.bytes",
      String.valueOf(64L << 20), s -> Parsers.longAtLeast(s, 0), "Room kept for each active writer (a partition "
      + "appended to within the last minute, a group journal): one Chronicle mapping chunk (64 MiB).", false);
  public static final ConfigKey<Long> DISK_CHECK_INTERVAL_MS = new ConfigKey<>("disk.check.interval.ms", "200",
      s -> Parsers.longAtLeast(s, 10), "How often the free space of the data directory's filesystem is read.",
      false);

  // Operating (issue 9): HTTP endpoints, shutdown, TLS and access control.
  public static final ConfigKey<InetSocketAddress> HTTP_LISTEN = new ConfigKey<>("http.listen", "localhost:7080",
      Parsers::hostPort, "host:port of the HTTP server: /healthz, /readyz, /metrics, /stats and the REST relay "
      + "(/topics/..., /openapi.json; port 0: any free port).",
      false);
  public static final ConfigKey<java.util.List<String>> HTTP_CORS_ORIGINS = new ConfigKey<>("http.cors.origins", "",
      Parsers::origins, "Browser origins allowed to call the REST relay (CORS), comma-separated "
      + "(https://app.example.com), or * for any; empty: none (curl and servers need no CORS).", false);
  public static final ConfigKey<Long> SHUTDOWN_GRACE_MS = new ConfigKey<>("shutdown.grace.ms", "5000",
      s -> Parsers.longAtLeast(s, 0), "On SIGTERM, how long calls in flight may take to finish before they are "
      + "cancelled; streams are told to reconnect at once.", false);
  /** What a TLS server asks of its clients' certificates. */
  public enum ClientAuth { NONE, OPTIONAL, REQUIRE }
  public static final ConfigKey<Optional<Path>> TLS_CERT_FILE = new ConfigKey<>("tls.cert.file", "",
      Parsers::optionalPath, "PEM certificate chain of the broker; with tls.key.file, gRPC and HTTP serve TLS only "
      + "(empty: plaintext).", false);
  public static final ConfigKey<Optional<Path>> TLS_KEY_FILE = new ConfigKey<>("tls.key.file", "",
      Parsers::optionalPath, "PEM private key (PKCS#8) of tls.cert.file.", false);
  public static final ConfigKey<String> TLS_KEY_PASSWORD = new ConfigKey<>("tls.key.password", "", s -> s,
      "Password of an encrypted tls.key.file (empty: the key is not encrypted).", true);
  public static final ConfigKey<Optional<Path>> TLS_CLIENT_CA_FILE = new ConfigKey<>("tls.client.ca.file", "",
      Parsers::optionalPath, "PEM certificates of the CAs that sign client certificates: set, the broker asks for "
      + "a client certificate (mutual TLS) and its subject's CN becomes the caller's principal.", false);
  public static final ConfigKey<ClientAuth> TLS_CLIENT_AUTH = new ConfigKey<>("tls.client.auth", "require",
      s -> Parsers.enumValue(ClientAuth.class, s), "With tls.client.ca.file: require a client certificate, or "
      + "accept one (optional) and fall back to a token; none with tls.client.ca.file is refused at start.", false);
  public static final ConfigKey<Boolean> AUTH_ENABLED = new ConfigKey<>("auth.enabled", "false", Parsers::bool,
      "Every call needs a principal (bearer token, client certificate, or anonymous when auth.anonymous) and "
      + "the permission for what it does (auth.permissions.file); false: anyone may do anything.", false);
  public static final ConfigKey<Optional<Path>> AUTH_TOKENS_FILE = new ConfigKey<>("auth.tokens.file", "",
      Parsers::optionalPath, "File of bearer tokens, one 'principal=token' per line (# comments); a Kubernetes "
      + "Secret mounted as a file fits.", false);
  public static final ConfigKey<String> AUTH_TOKENS = new ConfigKey<>("auth.tokens", "", s -> s,
      "Bearer tokens given inline, 'principal=token' separated by commas (added to auth.tokens.file's).", true);
  public static final ConfigKey<Optional<Path>> AUTH_PERMISSIONS_FILE = new ConfigKey<>("auth.permissions.file", "",
      Parsers::optionalPath, "Permissions, one 'principal permissions resource' per line: permissions produce, "
      + "consume, admin or * (comma-separated), resource topic:NAME or group:NAME with a trailing * for a prefix; "
      + "principal * is any authenticated caller.", false);
  public static final ConfigKey<Boolean> AUTH_ANONYMOUS = new ConfigKey<>("auth.anonymous", "false", Parsers::bool,
      "With auth.enabled: calls without a token or certificate act as principal 'anonymous' (with its "
      + "permissions) instead of being refused UNAUTHENTICATED.", false);

  // Kafka wire protocol (issue 25, D44): a second front door beside gRPC.
  public static final ConfigKey<Optional<InetSocketAddress>> KAFKA_LISTEN = new ConfigKey<>("kafka.listen",
      "localhost:9092", Parsers::optionalHostPort, "host:port the Kafka protocol listener binds (port 0: any free "
      + "port; empty: no Kafka listener). With auth.enabled its clients authenticate with SASL (PLAIN, "
      + "SCRAM-SHA-256/512), a client certificate or as anonymous, as on gRPC.", false);
  public static final ConfigKey<Optional<InetSocketAddress>> KAFKA_ADVERTISED = new ConfigKey<>("kafka.advertised",
      "", Parsers::advertisedHostPort, "host:port Kafka clients are told to connect to (Metadata, DescribeCluster); "
      + "empty: the address kafka.listen bound, with the real port when it asked for port 0. A wildcard host "
      + "(0.0.0.0, ::) is refused: clients cannot connect to it.", false);
  public static final ConfigKey<Integer> KAFKA_CONNECTION_MAX_INFLIGHT = new ConfigKey<>(
      "kafka.connection.max.inflight", "32", Parsers::positiveInt,
      "Requests one Kafka connection may have read but not yet answered; the broker reads no more from it until "
      + "one is answered (clients may pipeline far more: librdkafka up to 1,000,000). Requests are answered in "
      + "order; the largest frame is max.request.bytes.", false);
  public static final ConfigKey<Long> KAFKA_CONNECTIONS_MAX_IDLE_MS = new ConfigKey<>(
      "kafka.connections.max.idle.ms", "600000", s -> Parsers.longAtLeast(s, 0),
      "A Kafka connection with nothing read from it and nothing written to it for this long is closed (Kafka's "
      + "connections.max.idle.ms; clients reconnect when they need to): also one whose client stopped reading its "
      + "answers. 0: never.", false);

  public static final List<ConfigKey<?>> ALL = List.of(DATA_DIR, GRPC_LISTEN, GRPC_THREADS, READ_THREADS,
      MAX_REQUEST_BYTES, GRPC_MAX_CONCURRENT_STREAMS, OUTBOUND_MAX_BYTES, OUTBOUND_CLIENT_MAX_BYTES, MAX_TOPICS, MAX_PARTITIONS, MAX_GROUPS, MAX_BATCH_RECORDS, PRODUCE_STREAM_MAX_INFLIGHT, FETCH_MAX_WAIT_MS, SYNC_GROUP_COMMIT, PRODUCER_ID_EXPIRATION_MS,
      PRODUCER_MAINTENANCE_INTERVAL_MS, DEFAULT_PARTITIONS, AUTO_CREATE_TOPICS_ENABLE,
      DEFAULT_SEGMENT_ROLL, DEFAULT_RETENTION_MS, DEFAULT_RETENTION_BYTES, RETENTION_CHECK_INTERVAL_MS,
      DEFAULT_MAX_RECORD_BYTES, DEFAULT_MAX_MESSAGE_BYTES, GROUP_MIN_SESSION_TIMEOUT_MS, GROUP_MAX_SESSION_TIMEOUT_MS, GROUP_HEARTBEAT_INTERVAL_MS,
      GROUP_INITIAL_REBALANCE_DELAY_MS, GROUP_OFFSETS_RETENTION_MS, GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS,
      GROUP_CONSUMER_SESSION_TIMEOUT_MS, GROUP_CONSUMER_MIGRATION_POLICY, GROUP_JOURNAL_COMPACT_EVENTS,
      DISK_FREE_MIN_BYTES, DISK_HEADROOM_BYTES, DISK_FREE_PER_WRITER_BYTES, DISK_CHECK_INTERVAL_MS,
      HTTP_LISTEN, HTTP_CORS_ORIGINS, SHUTDOWN_GRACE_MS, TLS_CERT_FILE, TLS_KEY_FILE, TLS_KEY_PASSWORD, TLS_CLIENT_CA_FILE,
      TLS_CLIENT_AUTH, AUTH_ENABLED, AUTH_TOKENS_FILE, AUTH_TOKENS, AUTH_PERMISSIONS_FILE, AUTH_ANONYMOUS,
      KAFKA_LISTEN, KAFKA_ADVERTISED, KAFKA_CONNECTION_MAX_INFLIGHT, KAFKA_CONNECTIONS_MAX_IDLE_MS);
}
