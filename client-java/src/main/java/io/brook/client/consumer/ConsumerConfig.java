package io.brook.client.consumer;

import io.brook.client.Security;
import io.brook.client.internal.Problems;
import io.grpc.ManagedChannel;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * What a {@link BrookConsumer} is configured with. Build it with {@link #builder()}; {@link
 * Builder#build()} checks every option at once and throws one {@link
 * io.brook.client.errors.ConfigException} naming all the invalid ones. Option names follow Kafka's;
 * each builder method names its option and default.
 */
public final class ConsumerConfig {
  /** Group names follow the broker's topic-name rule. */
  private static final Pattern GROUP_NAME = Pattern.compile("[a-zA-Z0-9._-]{1,249}");
  /** The client's channel accepts answers up to 64 MiB; leave room for framing. */
  static final int MAX_FETCH_BYTES = 32 << 20;

  private final String broker;
  private final ManagedChannel channel;
  private final Security security;
  private final String groupId;
  private final String clientId;
  private final int sessionTimeoutMs;
  private final int maxPollIntervalMs;
  private final OffsetResetStrategy autoOffsetReset;
  private final boolean enableAutoCommit;
  private final long autoCommitIntervalMs;
  private final int maxPollRecords;
  private final int fetchMaxWaitMs;
  private final int fetchMaxBytes;
  private final long requestTimeoutMs;
  private final long defaultApiTimeoutMs;
  private final long reconnectBackoffMs;
  private final long reconnectBackoffMaxMs;
  private final RebalanceProtocol rebalanceProtocol;
  private final String groupInstanceId;

  private ConsumerConfig(Builder b) {
    broker = b.broker;
    channel = b.channel;
    security = b.security == null ? Security.plaintext() : b.security;
    groupId = b.groupId;
    clientId = b.clientId;
    sessionTimeoutMs = (int) b.sessionTimeoutMs;
    maxPollIntervalMs = (int) b.maxPollIntervalMs;
    autoOffsetReset = b.autoOffsetReset;
    enableAutoCommit = b.enableAutoCommit == null ? groupId != null : b.enableAutoCommit;
    autoCommitIntervalMs = b.autoCommitIntervalMs;
    maxPollRecords = (int) b.maxPollRecords;
    fetchMaxWaitMs = (int) b.fetchMaxWaitMs;
    fetchMaxBytes = (int) b.fetchMaxBytes;
    requestTimeoutMs = b.requestTimeoutMs;
    defaultApiTimeoutMs = b.defaultApiTimeoutMs;
    reconnectBackoffMs = b.reconnectBackoffMs;
    reconnectBackoffMaxMs = b.reconnectBackoffMaxMs;
    rebalanceProtocol = b.rebalanceProtocol;
    groupInstanceId = b.groupInstanceId;
  }

  public static Builder builder() {
    return new Builder();
  }

  public String broker() {
    return broker;
  }

  /** The shared channel, or null when the consumer makes its own from {@link #broker()}. */
  public ManagedChannel channel() {
    return channel;
  }

  /** TLS and credentials of the consumer's own channel. */
  public Security security() {
    return security;
  }

  /** The group, or null (then only {@link BrookConsumer#assign} works, and nothing can be committed). */
  public String groupId() {
    return groupId;
  }

  public String clientId() {
    return clientId;
  }

  public int sessionTimeoutMs() {
    return sessionTimeoutMs;
  }

  public int maxPollIntervalMs() {
    return maxPollIntervalMs;
  }

  public OffsetResetStrategy autoOffsetReset() {
    return autoOffsetReset;
  }

  public boolean enableAutoCommit() {
    return enableAutoCommit;
  }

  public long autoCommitIntervalMs() {
    return autoCommitIntervalMs;
  }

  public int maxPollRecords() {
    return maxPollRecords;
  }

  public int fetchMaxWaitMs() {
    return fetchMaxWaitMs;
  }

  public int fetchMaxBytes() {
    return fetchMaxBytes;
  }

  public long requestTimeoutMs() {
    return requestTimeoutMs;
  }

  public long defaultApiTimeoutMs() {
    return defaultApiTimeoutMs;
  }

  public long reconnectBackoffMs() {
    return reconnectBackoffMs;
  }

  public long reconnectBackoffMaxMs() {
    return reconnectBackoffMaxMs;
  }

  public RebalanceProtocol rebalanceProtocol() {
    return rebalanceProtocol;
  }

  /** The static member's instance id, or null for a dynamic member. */
  public String groupInstanceId() {
    return groupInstanceId;
  }

  /** Collects the options; nothing is checked before {@link #build()}. */
  public static final class Builder {
    private String broker = "localhost:7070";
    private ManagedChannel channel;
    private Security security;
    private String groupId;
    private String clientId = "brook-consumer";
    private long sessionTimeoutMs = 45_000;
    private long maxPollIntervalMs = 300_000;
    private OffsetResetStrategy autoOffsetReset = OffsetResetStrategy.LATEST;
    private Boolean enableAutoCommit;
    private long autoCommitIntervalMs = 5_000;
    private long maxPollRecords = 500;
    private long fetchMaxWaitMs = 500;
    private long fetchMaxBytes = 1 << 20;
    private long requestTimeoutMs = 30_000;
    private long defaultApiTimeoutMs = 60_000;
    private long reconnectBackoffMs = 50;
    private long reconnectBackoffMaxMs = 1_000;
    private RebalanceProtocol rebalanceProtocol = RebalanceProtocol.EAGER;
    private String groupInstanceId;

    private Builder() {}

    /** {@code broker.address} (Kafka's bootstrap.servers): {@code host:port}, default {@code localhost:7070}. */
    public Builder broker(String hostPort) {
      this.broker = hostPort;
      return this;
    }

    /**
     * A channel shared with other clients, used instead of {@code broker.address}. Closing the
     * consumer leaves it open. Give it a max inbound message size above {@code fetch.max.bytes}.
     */
    public Builder channel(ManagedChannel shared) {
      this.channel = shared;
      return this;
    }

    /**
     * TLS, a client certificate and/or a bearer token ({@link Security}); default
     * plaintext without credentials. Not with a shared {@code channel}, which brings its own.
     */
    public Builder security(Security security) {
      this.security = security;
      return this;
    }

    /**
     * {@code group.id}: the consumer group, needed by {@link BrookConsumer#subscribe} and by every
     * commit. Default: none.
     */
    public Builder groupId(String group) {
      this.groupId = group;
      return this;
    }

    /** {@code client.id}: a name shown by {@code brook group describe}. Default {@code brook-consumer}. */
    public Builder clientId(String id) {
      this.clientId = id;
      return this;
    }

    /**
     * {@code session.timeout.ms}: a member whose heartbeats stop this long is removed from the group.
     * Default 45000; the broker accepts 6000..1800000 unless configured otherwise. The heartbeat
     * interval is the broker's answer (a third of this, at most its {@code group.heartbeat.interval.ms},
     * 3 s by default); the broker holds each heartbeat until the group changes, so a rebalance is
     * heard of at once.
     */
    public Builder sessionTimeout(Duration d) {
      this.sessionTimeoutMs = d.toMillis();
      return this;
    }

    /**
     * {@code max.poll.interval.ms}: the longest time between two polls. Past it the consumer leaves
     * the group (its partitions go to the other members) and its next poll joins again. Also the
     * longest a rebalance waits for members to rejoin. Default 300000.
     */
    public Builder maxPollInterval(Duration d) {
      this.maxPollIntervalMs = d.toMillis();
      return this;
    }

    /** {@code auto.offset.reset}: where partitions without a committed offset start. Default {@code LATEST}. */
    public Builder autoOffsetReset(OffsetResetStrategy reset) {
      this.autoOffsetReset = reset;
      return this;
    }

    /**
     * {@code enable.auto.commit}: commit the positions every {@code auto.commit.interval.ms} inside
     * poll (what the previous polls returned), before partitions are revoked, and on close.
     * Default: true with a {@code group.id}, false without one (true without one is invalid).
     */
    public Builder enableAutoCommit(boolean enable) {
      this.enableAutoCommit = enable;
      return this;
    }

    /** {@code auto.commit.interval.ms}: default 5000. */
    public Builder autoCommitInterval(Duration d) {
      this.autoCommitIntervalMs = d.toMillis();
      return this;
    }

    /** {@code max.poll.records}: the most records one poll returns. Default 500. */
    public Builder maxPollRecords(int n) {
      this.maxPollRecords = n;
      return this;
    }

    /**
     * {@code fetch.max.wait.ms}: the longest one fetch waits at the broker for records. A rebalance
     * is noticed between fetches, so this also bounds how late the consumer rejoins. Default 500.
     */
    public Builder fetchMaxWait(Duration d) {
      this.fetchMaxWaitMs = d.toMillis();
      return this;
    }

    /**
     * {@code fetch.max.bytes}: about the most bytes of records one fetch returns (at least one
     * record is returned even when it alone is larger). Default 1048576, at most 33554432.
     */
    public Builder fetchMaxBytes(int bytes) {
      this.fetchMaxBytes = bytes;
      return this;
    }

    /** {@code request.timeout.ms}: how long one call waits for the broker's answer. Default 30000. */
    public Builder requestTimeout(Duration d) {
      this.requestTimeoutMs = d.toMillis();
      return this;
    }

    /**
     * {@code default.api.timeout.ms}: how long blocking calls without a timeout of their own
     * (commitSync, committed, position, close) keep retrying while the broker is unreachable, and
     * how long poll tolerates an unreachable broker before it throws. Default 60000.
     */
    public Builder defaultApiTimeout(Duration d) {
      this.defaultApiTimeoutMs = d.toMillis();
      return this;
    }

    /** {@code reconnect.backoff.ms}: the first wait before retrying after the broker was unreachable. Default 50. */
    public Builder reconnectBackoff(Duration d) {
      this.reconnectBackoffMs = d.toMillis();
      return this;
    }

    /** {@code reconnect.backoff.max.ms}: the wait doubles up to this. Default 1000. */
    public Builder reconnectBackoffMax(Duration d) {
      this.reconnectBackoffMaxMs = d.toMillis();
      return this;
    }

    /**
     * {@code rebalance.protocol} (Kafka's {@code partition.assignment.strategy} with its
     * CooperativeStickyAssignor): {@link RebalanceProtocol#COOPERATIVE} keeps the member's partitions
     * while it rejoins, polls go on returning their records, and the listener hears only of partitions
     * that move. Default {@link RebalanceProtocol#EAGER}.
     */
    public Builder rebalanceProtocol(RebalanceProtocol protocol) {
      this.rebalanceProtocol = protocol;
      return this;
    }

    /**
     * {@code group.instance.id}: makes the consumer a static member of its group (Kafka's KIP-345).
     * A consumer that starts with the instance id of a member in the group takes its place and its
     * partitions, without a rebalance while the group is stable: a restart within {@code
     * session.timeout.ms} moves no partition. Close does not leave the group (the member goes when
     * its session times out), and a second live consumer with the same id fences the first, whose
     * poll then throws {@link io.brook.client.errors.MemberReplacedException}. Same rule as {@code
     * group.id}; needs one. Default: none (a dynamic member).
     */
    public Builder groupInstanceId(String id) {
      this.groupInstanceId = id;
      return this;
    }

    /** Checks every option; one {@link io.brook.client.errors.ConfigException} lists all problems. */
    public ConsumerConfig build() {
      Problems p = new Problems("consumer");
      p.broker(broker, channel);
      p.security(security, channel);
      p.check(groupId == null || GROUP_NAME.matcher(groupId).matches(), "group.id",
          "must match [a-zA-Z0-9._-]{1,249}", groupId);
      p.check(clientId != null, "client.id", "must not be null", clientId);
      p.between("session.timeout.ms", sessionTimeoutMs, 1, Integer.MAX_VALUE);
      p.between("max.poll.interval.ms", maxPollIntervalMs, 1, Integer.MAX_VALUE);
      p.present("auto.offset.reset", autoOffsetReset);
      p.check(!(Boolean.TRUE.equals(enableAutoCommit) && groupId == null), "enable.auto.commit",
          "needs a group.id", enableAutoCommit);
      p.atLeast("auto.commit.interval.ms", autoCommitIntervalMs, 1);
      p.between("max.poll.records", maxPollRecords, 1, 100_000);
      p.between("fetch.max.wait.ms", fetchMaxWaitMs, 0, Integer.MAX_VALUE);
      p.between("fetch.max.bytes", fetchMaxBytes, 1, MAX_FETCH_BYTES);
      p.atLeast("request.timeout.ms", requestTimeoutMs, 1);
      p.check(requestTimeoutMs < 1 || fetchMaxWaitMs < requestTimeoutMs, "fetch.max.wait.ms",
          "must be below request.timeout.ms (" + requestTimeoutMs + ")", fetchMaxWaitMs);
      p.atLeast("default.api.timeout.ms", defaultApiTimeoutMs, 1);
      p.atLeast("reconnect.backoff.ms", reconnectBackoffMs, 1);
      p.check(reconnectBackoffMaxMs >= reconnectBackoffMs, "reconnect.backoff.max.ms",
          "must be >= reconnect.backoff.ms (" + reconnectBackoffMs + ")", reconnectBackoffMaxMs);
      p.present("rebalance.protocol", rebalanceProtocol);
      p.check(groupInstanceId == null || GROUP_NAME.matcher(groupInstanceId).matches(), "group.instance.id",
          "must match [a-zA-Z0-9._-]{1,249}", groupInstanceId);
      p.check(groupInstanceId == null || groupId != null, "group.instance.id", "needs a group.id", groupInstanceId);
      p.throwIfAny();
      return new ConsumerConfig(this);
    }
  }
}
