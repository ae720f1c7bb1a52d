package io.brook.client.ack;

import io.brook.client.Security;
import io.brook.client.internal.Names;
import io.brook.client.internal.Problems;
import io.grpc.ManagedChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The options of an {@link AckConsumer}, validated once by {@link Builder#build()}: one {@code
 * ConfigException} names every invalid option.
 *
 * <table>
 * <caption>Options</caption>
 * <tr><th>option</th><th>default</th><th>meaning</th></tr>
 * <tr><td>{@code broker}</td><td>{@code localhost:7070}</td><td>the broker, {@code host:port}</td></tr>
 * <tr><td>{@code channel}</td><td>none</td><td>a gRPC channel shared with other clients instead of
 *   {@code broker}; closing the consumer leaves it open</td></tr>
 * <tr><td>{@code group}</td><td>required</td><td>the ack-mode group; created (in ack mode, with the
 *   broker's defaults) when it does not exist</td></tr>
 * <tr><td>{@code topics}</td><td>required</td><td>the topics to receive from; they must exist</td></tr>
 * <tr><td>{@code clientId}</td><td>none</td><td>a stable member id: its leases outlive a broken stream
 *   (until they expire) and the next stream with the same id takes them over. Without it the broker
 *   makes an id per stream and hands the stream's leases back when it ends</td></tr>
 * <tr><td>{@code maxOutstandingRecords}</td><td>1000</td><td>flow control: the most records leased to
 *   this consumer and not yet settled; the broker sends more as records are settled</td></tr>
 * <tr><td>{@code maxOutstandingBytes}</td><td>100 MiB</td><td>the same in record bytes (at least one
 *   record is delivered even when larger)</td></tr>
 * <tr><td>{@code maxPollRecords}</td><td>500</td><td>the most records one {@code poll} returns</td></tr>
 * <tr><td>{@code ackFlushInterval}</td><td>100 ms</td><td>settles are buffered and sent together on
 *   the stream this often; 0 sends each at once</td></tr>
 * <tr><td>{@code ackMaxBatch}</td><td>1000</td><td>buffered settles that are sent at once, without
 *   waiting for the interval</td></tr>
 * <tr><td>{@code reconnectBackoff}, {@code reconnectBackoffMax}</td><td>100 ms, 10 s</td><td>the wait
 *   before opening a broken stream again, doubling (with jitter) up to the maximum</td></tr>
 * <tr><td>{@code requestTimeout}</td><td>30 s</td><td>the longest {@code flush()} and {@code close()}
 *   wait for the broker ({@code close()}: for a stream to send its last settles on, then for its
 *   end; {@code close(Duration)} sets its own bound)</td></tr>
 * <tr><td>{@code settleFailureHandler}</td><td>logs a warning</td><td>told about background settles the
 *   broker did not apply, and by {@code close()} about every settle it could not get applied</td></tr>
 * </table>
 */
public final class AckConsumerConfig {
  public static final String DEFAULT_ADDRESS = "localhost:7070";

  private final String address;
  private final ManagedChannel channel;
  private final Security security;
  private final String group;
  private final List<String> topics;
  private final String clientId;
  private final long maxOutstandingRecords;
  private final long maxOutstandingBytes;
  private final int maxPollRecords;
  private final Duration ackFlushInterval;
  private final int ackMaxBatch;
  private final Duration reconnectBackoff;
  private final Duration reconnectBackoffMax;
  private final Duration requestTimeout;
  private final SettleFailureHandler settleFailureHandler;

  private AckConsumerConfig(Builder b) {
    address = b.address;
    channel = b.channel;
    security = b.security == null ? Security.plaintext() : b.security;
    group = b.group;
    topics = List.copyOf(b.topics);
    clientId = b.clientId;
    maxOutstandingRecords = b.maxOutstandingRecords;
    maxOutstandingBytes = b.maxOutstandingBytes;
    maxPollRecords = b.maxPollRecords;
    ackFlushInterval = b.ackFlushInterval;
    ackMaxBatch = b.ackMaxBatch;
    reconnectBackoff = b.reconnectBackoff;
    reconnectBackoffMax = b.reconnectBackoffMax;
    requestTimeout = b.requestTimeout;
    settleFailureHandler = b.settleFailureHandler;
  }

  public static Builder builder() {
    return new Builder();
  }

  public String address() {
    return address;
  }

  /** The shared channel, or null. */
  public ManagedChannel channel() {
    return channel;
  }

  /** TLS and credentials of the consumer's own channel. */
  public Security security() {
    return security;
  }

  public String group() {
    return group;
  }

  public List<String> topics() {
    return topics;
  }

  /** The stable member id, or null. */
  public String clientId() {
    return clientId;
  }

  public long maxOutstandingRecords() {
    return maxOutstandingRecords;
  }

  public long maxOutstandingBytes() {
    return maxOutstandingBytes;
  }

  public int maxPollRecords() {
    return maxPollRecords;
  }

  public Duration ackFlushInterval() {
    return ackFlushInterval;
  }

  public int ackMaxBatch() {
    return ackMaxBatch;
  }

  public Duration reconnectBackoff() {
    return reconnectBackoff;
  }

  public Duration reconnectBackoffMax() {
    return reconnectBackoffMax;
  }

  public Duration requestTimeout() {
    return requestTimeout;
  }

  /** The handler, or null for the default (a logged warning). */
  public SettleFailureHandler settleFailureHandler() {
    return settleFailureHandler;
  }

  /** Collects options; {@link #build()} checks them all at once. */
  public static final class Builder {
    private String address = DEFAULT_ADDRESS;
    private ManagedChannel channel;
    private Security security;
    private String group;
    private final List<String> topics = new ArrayList<>();
    private String clientId;
    private long maxOutstandingRecords = 1000;
    private long maxOutstandingBytes = 100L << 20;
    private int maxPollRecords = 500;
    private Duration ackFlushInterval = Duration.ofMillis(100);
    private int ackMaxBatch = 1000;
    private Duration reconnectBackoff = Duration.ofMillis(100);
    private Duration reconnectBackoffMax = Duration.ofSeconds(10);
    private Duration requestTimeout = Duration.ofSeconds(30);
    private SettleFailureHandler settleFailureHandler;

    private Builder() {}

    public Builder broker(String address) {
      this.address = address;
      return this;
    }

    public Builder channel(ManagedChannel channel) {
      this.channel = channel;
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

    public Builder group(String group) {
      this.group = group;
      return this;
    }

    public Builder topics(String... topics) {
      return topics(List.of(topics));
    }

    public Builder topics(List<String> topics) {
      this.topics.clear();
      this.topics.addAll(topics);
      return this;
    }

    public Builder clientId(String clientId) {
      this.clientId = clientId;
      return this;
    }

    public Builder maxOutstandingRecords(long max) {
      this.maxOutstandingRecords = max;
      return this;
    }

    public Builder maxOutstandingBytes(long max) {
      this.maxOutstandingBytes = max;
      return this;
    }

    public Builder maxPollRecords(int max) {
      this.maxPollRecords = max;
      return this;
    }

    public Builder ackFlushInterval(Duration interval) {
      this.ackFlushInterval = interval;
      return this;
    }

    public Builder ackMaxBatch(int max) {
      this.ackMaxBatch = max;
      return this;
    }

    public Builder reconnectBackoff(Duration initial, Duration max) {
      this.reconnectBackoff = initial;
      this.reconnectBackoffMax = max;
      return this;
    }

    public Builder requestTimeout(Duration timeout) {
      this.requestTimeout = timeout;
      return this;
    }

    public Builder settleFailureHandler(SettleFailureHandler handler) {
      this.settleFailureHandler = handler;
      return this;
    }

    /** The config, or a {@code ConfigException} naming every invalid option. */
    public AckConsumerConfig build() {
      Problems p = new Problems("ack consumer");
      p.broker(address, channel);
      p.security(security, channel);
      String badGroup = Names.check(group);
      p.check(badGroup == null, "group", badGroup, group);
      p.check(!topics.isEmpty(), "topics", "must name at least one topic", topics);
      for (String t : topics) {
        String bad = Names.check(t);
        p.check(bad == null, "topics", bad, t);
      }
      p.check(clientId == null || !clientId.isBlank(), "clientId", "must not be blank (leave it unset instead)",
          "'" + clientId + "'");
      p.atLeast("maxOutstandingRecords", maxOutstandingRecords, 1);
      p.atLeast("maxOutstandingBytes", maxOutstandingBytes, 1);
      p.atLeast("maxPollRecords", maxPollRecords, 1);
      p.between("ackFlushInterval (ms)", millis(ackFlushInterval, -1), 0, 60_000);
      p.atLeast("ackMaxBatch", ackMaxBatch, 1);
      long initial = millis(reconnectBackoff, -1);
      long max = millis(reconnectBackoffMax, -1);
      p.atLeast("reconnectBackoff (ms)", initial, 1);
      p.check(max >= Math.max(1, initial), "reconnectBackoffMax (ms)", "must be >= reconnectBackoff", max);
      p.atLeast("requestTimeout (ms)", millis(requestTimeout, -1), 1);
      p.throwIfAny();
      return new AckConsumerConfig(this);
    }

    private static long millis(Duration d, long whenNull) {
      return d == null ? whenNull : d.toMillis();
    }
  }

  @Override
  public String toString() {
    return "AckConsumerConfig(" + (channel != null ? "shared channel" : address) + ", group " + group + ", topics "
        + topics + (clientId == null ? "" : ", clientId " + clientId) + ")";
  }
}
