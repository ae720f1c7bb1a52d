package io.brook.client.producer;

import io.brook.client.Durability;
import io.brook.client.Security;
import io.brook.client.internal.Problems;
import io.grpc.ManagedChannel;
import java.time.Duration;

/**
 * A producer's settings. The names follow Kafka's producer configs (in brackets) so that a Kafka
 * user finds them; {@link Builder#build()} checks them all at once and names every invalid one.
 */
public final class ProducerConfig {
  final String broker;
  final ManagedChannel channel;
  final Security security;
  final String clientId;
  final int batchSize;
  final long lingerMs;
  final long bufferMemory;
  final long maxBlockMs;
  final long deliveryTimeoutMs;
  final long requestTimeoutMs;
  final long retryBackoffMs;
  final long retryBackoffMaxMs;
  final long reconnectBackoffMs;
  final long reconnectBackoffMaxMs;
  final int maxInFlightPerPartition;
  final boolean idempotence;
  final Durability durability;
  final int maxRequestSize;
  final long metadataMaxAgeMs;
  final CompressionType compression;
  /** Null: the default (murmur2 of the key, sticky without one). */
  final Partitioner partitioner;

  private ProducerConfig(Builder b) {
    Problems p = new Problems("producer");
    p.broker(b.broker, b.channel)
        .security(b.security, b.channel)
        .atLeast("batchSize", b.batchSize, 1)
        .betweenMs("linger", b.lingerMs, 0, 3_600_000)
        .between("bufferMemory", b.bufferMemory, 1024, Integer.MAX_VALUE)
        .betweenMs("maxBlock", b.maxBlockMs, 0, Integer.MAX_VALUE)
        .betweenMs("requestTimeout", b.requestTimeoutMs, 1, Integer.MAX_VALUE)
        .betweenMs("deliveryTimeout", b.deliveryTimeoutMs, 1, Integer.MAX_VALUE)
        .check(b.deliveryTimeoutMs >= b.lingerMs + b.requestTimeoutMs, "deliveryTimeout",
            "must be >= linger + requestTimeoutMs (" + (b.lingerMs + b.requestTimeoutMs) + ")", b.deliveryTimeoutMs)
        .betweenMs("retryBackoff", b.retryBackoffMs, 1, Integer.MAX_VALUE)
        .check(b.retryBackoffMaxMs >= b.retryBackoffMs, "retryBackoffMax", "must be >= retryBackoff",
            b.retryBackoffMaxMs)
        .betweenMs("reconnectBackoff", b.reconnectBackoffMs, 1, Integer.MAX_VALUE)
        .check(b.reconnectBackoffMaxMs >= b.reconnectBackoffMs, "reconnectBackoffMax",
            "must be >= reconnectBackoff", b.reconnectBackoffMaxMs)
        .check(b.maxInFlightPerPartition >= 1 && (!b.idempotence || b.maxInFlightPerPartition <= 5),
            "maxInFlightPerPartition", b.idempotence ? "must be in [1, 5] with idempotence (the broker remembers the "
                + "last 5 batches per producer and partition)" : "must be >= 1", b.maxInFlightPerPartition)
        .present("durability", b.durability)
        .present("compression", b.compression)
        .atLeast("maxRequestSize", b.maxRequestSize, 1024)
        .betweenMs("metadataMaxAge", b.metadataMaxAgeMs, 0, Integer.MAX_VALUE)
        .throwIfAny();
    broker = b.broker;
    channel = b.channel;
    security = b.security == null ? Security.plaintext() : b.security;
    clientId = b.clientId;
    batchSize = b.batchSize;
    lingerMs = b.lingerMs;
    bufferMemory = b.bufferMemory;
    maxBlockMs = b.maxBlockMs;
    deliveryTimeoutMs = b.deliveryTimeoutMs;
    requestTimeoutMs = b.requestTimeoutMs;
    retryBackoffMs = b.retryBackoffMs;
    retryBackoffMaxMs = b.retryBackoffMaxMs;
    reconnectBackoffMs = b.reconnectBackoffMs;
    reconnectBackoffMaxMs = b.reconnectBackoffMaxMs;
    maxInFlightPerPartition = b.maxInFlightPerPartition;
    idempotence = b.idempotence;
    durability = b.durability;
    maxRequestSize = b.maxRequestSize;
    metadataMaxAgeMs = b.metadataMaxAgeMs;
    compression = b.compression;
    partitioner = b.partitioner;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Every option with its default. */
  public static final class Builder {
    private String broker = "localhost:7070";
    private ManagedChannel channel;
    private Security security;
    private String clientId = "";
    private int batchSize = 16_384;
    private long lingerMs = 5;
    private long bufferMemory = 32L << 20;
    private long maxBlockMs = 60_000;
    private long deliveryTimeoutMs = 120_000;
    private long requestTimeoutMs = 30_000;
    private long retryBackoffMs = 100;
    private long retryBackoffMaxMs = 1_000;
    private long reconnectBackoffMs = 50;
    private long reconnectBackoffMaxMs = 1_000;
    private int maxInFlightPerPartition = 5;
    private boolean idempotence = true;
    private Durability durability = Durability.WRITTEN;
    private int maxRequestSize = 1 << 20;
    private long metadataMaxAgeMs = 300_000;
    private CompressionType compression = CompressionType.NONE;
    private Partitioner partitioner;

    private Builder() {}

    /** The broker's gRPC address, {@code host:port} (default {@code localhost:7070}). */
    public Builder broker(String hostPort) {
      this.broker = hostPort;
      return this;
    }

    /** A channel shared with other clients instead of one of its own; closing the producer leaves it open. */
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

    /** A name for logs and thread names ({@code client.id}). */
    public Builder clientId(String id) {
      this.clientId = id == null ? "" : id;
      return this;
    }

    /** A partition's batch is sent once it holds this many bytes of records ({@code batch.size}, 16384). */
    public Builder batchSize(int bytes) {
      this.batchSize = bytes;
      return this;
    }

    /** How long a batch that is not full waits for more records ({@code linger.ms}, 5). */
    public Builder linger(Duration d) {
      this.lingerMs = millis(d);
      return this;
    }

    /**
     * Bytes of records the producer holds unanswered ({@code buffer.memory}, 32 MiB); when full,
     * {@code send} blocks up to {@link #maxBlockMs} and then throws BufferExhaustedException.
     */
    public Builder bufferMemory(long bytes) {
      this.bufferMemory = bytes;
      return this;
    }

    /** How long {@code send} may block for buffer space or topic metadata ({@code max.block.ms}, 60000). */
    public Builder maxBlock(Duration d) {
      this.maxBlockMs = millis(d);
      return this;
    }

    /**
     * Upper bound on the time from {@code send} to its answer, retries included
     * ({@code delivery.timeout.ms}, 120000); then the record fails with BrookTimeoutException.
     */
    public Builder deliveryTimeout(Duration d) {
      this.deliveryTimeoutMs = millis(d);
      return this;
    }

    /**
     * How long the broker may take to answer a request before the stream is reopened and its
     * batches sent again ({@code request.timeout.ms}, 30000).
     */
    public Builder requestTimeout(Duration d) {
      this.requestTimeoutMs = millis(d);
      return this;
    }

    /** Wait before retrying a batch that failed transiently, doubling up to the max ({@code retry.backoff.ms}, 100). */
    public Builder retryBackoff(Duration d) {
      this.retryBackoffMs = millis(d);
      return this;
    }

    /** ({@code retry.backoff.max.ms}, 1000) */
    public Builder retryBackoffMax(Duration d) {
      this.retryBackoffMaxMs = millis(d);
      return this;
    }

    /**
     * Wait before opening a new stream after the broker went away, doubling up to the max
     * ({@code reconnect.backoff.ms}, 50).
     */
    public Builder reconnectBackoff(Duration d) {
      this.reconnectBackoffMs = millis(d);
      return this;
    }

    /** ({@code reconnect.backoff.max.ms}, 1000) */
    public Builder reconnectBackoffMax(Duration d) {
      this.reconnectBackoffMaxMs = millis(d);
      return this;
    }

    /** Batches per partition sent ahead of their answers ({@code max.in.flight.requests.per.connection}, 5). */
    public Builder maxInFlightPerPartition(int batches) {
      this.maxInFlightPerPartition = batches;
      return this;
    }

    /**
     * An idempotent producer ({@code enable.idempotence}, true): a producer id and per-partition
     * sequence numbers let the broker drop a retried batch it wrote before, so a retry never duplicates.
     */
    public Builder idempotence(boolean on) {
      this.idempotence = on;
      return this;
    }

    /** WRITTEN (default) or SYNCED: forced to the device before the broker answers. */
    public Builder durability(Durability level) {
      this.durability = level;
      return this;
    }

    /**
     * The largest request: batches for several partitions travel together up to this size, and a
     * larger single record is refused ({@code max.request.size}, 1 MiB; the broker's
     * {@code max.request.bytes} must be larger).
     */
    public Builder maxRequestSize(int bytes) {
      this.maxRequestSize = bytes;
      return this;
    }

    /**
     * How each batch's records are compressed ({@code compression.type}, none): gzip, snappy, lz4 or
     * zstd with the libraries and settings Kafka's producer uses. The broker stores a batch as it
     * came, compressed, and every Brook reader and Kafka consumer reads it. {@code batchSize} counts
     * bytes before compression.
     */
    public Builder compression(CompressionType codec) {
      this.compression = codec;
      return this;
    }

    /** How long a topic's partition count is trusted before it is read again ({@code metadata.max.age.ms}, 300000). */
    public Builder metadataMaxAge(Duration d) {
      this.metadataMaxAgeMs = millis(d);
      return this;
    }

    /**
     * Chooses the partition of records sent without one ({@code partitioner.class}); null (the
     * default): a keyed record goes to {@link Partitioner#partitionForKey}, keyless records to one
     * partition a batch at a time.
     */
    public Builder partitioner(Partitioner partitioner) {
      this.partitioner = partitioner;
      return this;
    }

    /** A duration in ms; null counts as invalid (-1), a huge one as the largest long. */
    private static long millis(Duration d) {
      if (d == null) {
        return -1;
      }
      try {
        return d.toMillis();
      } catch (ArithmeticException e) {
        return Long.MAX_VALUE;
      }
    }

    public ProducerConfig build() {
      return new ProducerConfig(this);
    }
  }
}
