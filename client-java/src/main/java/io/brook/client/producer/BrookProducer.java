package io.brook.client.producer;

import io.brook.client.Serializer;
import io.brook.client.TopicPartition;
import io.brook.client.admin.PartitionInfo;
import io.brook.client.errors.BrookException;
import io.brook.client.errors.BufferExhaustedException;
import io.brook.client.errors.ClientClosedException;
import io.brook.client.errors.RecordTooLargeException;
import io.brook.client.errors.UnknownPartitionException;
import io.brook.client.internal.Connection;
import io.brook.client.internal.PartitionInfos;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sends records to Brook, like Kafka's producer. Thread-safe: share one producer between threads.
 *
 * <p>{@link #send} puts the record in its partition's batch and returns at once; a batch goes out
 * when it holds {@code batchSize} bytes or has waited {@code linger}, together with the due
 * batches of other partitions, on one pipelined produce stream (at most
 * {@code maxInFlightPerPartition} batches per partition unanswered). The returned future completes
 * with the record's offset, or fails with a typed {@link BrookException}. Futures complete on the
 * producer's I/O threads: callbacks attached to them should be quick and must not block on this
 * producer's buffer.
 *
 * <p>By default the producer is idempotent: it sends with a producer id and per-partition
 * sequence numbers, retries transient failures (the broker restarting, a full disk) until
 * {@code deliveryTimeout}, and the broker drops a retried batch it wrote before, so a retry never
 * duplicates a record and records of a partition stay in send order.
 */
public final class BrookProducer<K, V> implements AutoCloseable {
  private static final AtomicInteger INSTANCES = new AtomicInteger();
  /** Room in a request for everything but the records (topic name, ids, framing). */
  private static final int REQUEST_OVERHEAD = 512;

  private final ProducerConfig config;
  private final Serializer<K> keySerializer;
  private final Serializer<V> valueSerializer;
  private final Connection connection;
  private final RecordAccumulator accumulator;
  private final TopicMetadata metadata;
  private final Semaphore buffer;
  private final Sender sender;
  private final ProducerMetrics metrics;
  private final Thread senderThread;
  private volatile boolean closed;

  public BrookProducer(ProducerConfig config, Serializer<K> keySerializer, Serializer<V> valueSerializer) {
    this.config = Objects.requireNonNull(config, "config");
    this.keySerializer = Objects.requireNonNull(keySerializer, "keySerializer");
    this.valueSerializer = Objects.requireNonNull(valueSerializer, "valueSerializer");
    this.connection = Connection.of(config.broker, config.channel, config.security);
    this.buffer = new Semaphore((int) config.bufferMemory);
    this.accumulator = new RecordAccumulator(config, buffer);
    this.metadata = new TopicMetadata(connection.channel(), config);
    this.metrics = new ProducerMetrics(buffer, config.bufferMemory);
    this.sender = new Sender(config, accumulator, metadata, buffer, connection.channel(), connection.address(), metrics);
    String name = "brook-producer-" + (config.clientId.isEmpty() ? INSTANCES.incrementAndGet() : config.clientId);
    this.senderThread = new Thread(sender, name);
    senderThread.setDaemon(true);
    senderThread.start();
  }

  /**
   * Queues the record and returns its future. Blocks only while the buffer is full or the topic's
   * partition count is being read, each up to {@code maxBlock}; throws BufferExhaustedException
   * when the buffer stayed full, ClientClosedException after close. Whatever the broker answers
   * (an unknown topic, a record too large, a timeout) fails the future instead.
   */
  public CompletableFuture<RecordMetadata> send(ProducerRecord<K, V> record) {
    Objects.requireNonNull(record, "record");
    ensureOpen();
    long deadline = System.nanoTime() + config.maxBlockMs * 1_000_000L;
    byte[] key = keySerializer.serialize(record.topic(), record.key());
    byte[] value = valueSerializer.serialize(record.topic(), record.value());
    // Like Kafka's producer: a record without a timestamp gets the producer's clock.
    long timestampMs = record.timestampMs() != null ? record.timestampMs() : System.currentTimeMillis();
    int size = KafkaRecordSize.max(key, value, record.headers());
    int partition;
    try {
      if (size > config.maxRequestSize - REQUEST_OVERHEAD || size > config.bufferMemory) {
        throw new RecordTooLargeException("RECORD_TOO_LARGE", "a record of " + size + " bytes is larger than "
            + "maxRequestSize (" + config.maxRequestSize + ") or bufferMemory (" + config.bufferMemory + ") allow");
      }
      partition = partition(record, key, value, deadline);
    } catch (BrookException e) {
      metrics.failed(1, e.reason()); // before the buffer: counted here, as the sender counts what fails later
      return CompletableFuture.failedFuture(e);
    }
    try {
      acquire(size, deadline);
    } catch (BrookException e) {
      metrics.failed(1, e.reason());
      throw e;
    }
    CompletableFuture<RecordMetadata> future = new CompletableFuture<>();
    accumulator.lock.lock();
    try {
      if (closed || sender.fatal() != null) {
        buffer.release(size);
        ensureOpen();
      }
      int p = partition >= 0 ? partition : accumulator.keylessPartition(record.topic(), -partition - 1, size);
      if (accumulator.append(new TopicPartition(record.topic(), p), size, key, value, record.headers(),
          timestampMs, future, System.nanoTime())) {
        accumulator.wake.signal();
      }
    } finally {
      accumulator.lock.unlock();
    }
    return future;
  }

  /** Sends and waits for the answer: the record's metadata, or the typed exception it failed with. */
  public RecordMetadata sendSync(ProducerRecord<K, V> record) {
    try {
      return send(record).get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof BrookException b ? b : new BrookException("CLIENT_ERROR", e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BrookException("INTERRUPTED", "interrupted while waiting for the broker's answer", e);
    }
  }

  /**
   * The partition, or -(partition count + 1) for a keyless record that goes to the topic's sticky
   * partition (without a partitioner of the application's).
   */
  private int partition(ProducerRecord<K, V> record, byte[] key, byte[] value, long deadline) {
    int count = metadata.partitionCount(record.topic(), deadline);
    if (record.partition() != null) {
      int p = record.partition();
      if (p >= count) {
        metadata.invalidate(record.topic()); // partitions may have been added since
        count = metadata.partitionCount(record.topic(), deadline);
      }
      if (p < 0 || p >= count) {
        throw new UnknownPartitionException("UNKNOWN_PARTITION", "topic " + record.topic() + " has no partition "
            + p + " (it has " + count + ")");
      }
      return p;
    }
    if (config.partitioner != null) {
      int p = config.partitioner.partition(record.topic(), key, value, count);
      if (p < 0 || p >= count) {
        throw new UnknownPartitionException("UNKNOWN_PARTITION", "the partitioner chose partition " + p + " of topic "
            + record.topic() + ", which has " + count + " (0 to " + (count - 1) + ")");
      }
      return p;
    }
    return key != null ? Partitioner.partitionForKey(key, count) : -count - 1;
  }

  /**
   * The topic's partitions as the broker describes them now (Kafka's partitionsFor; the admin's
   * {@link PartitionInfo}). Blocks up to {@code maxBlock} while the broker is unreachable, then
   * throws BrookTimeoutException; throws UnknownTopicException for a topic that does not exist.
   */
  public List<PartitionInfo> partitionsFor(String topic) {
    Objects.requireNonNull(topic, "topic");
    ensureOpen();
    return PartitionInfos.of(metadata.describe(topic, System.nanoTime() + config.maxBlockMs * 1_000_000L), PartitionInfo::new);
  }

  private void acquire(int size, long deadline) {
    try {
      if (!buffer.tryAcquire(size, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        throw new BufferExhaustedException("BUFFER_EXHAUSTED", "no room for a record of " + size + " bytes in "
            + "bufferMemory (" + config.bufferMemory + " bytes) within maxBlock (" + config.maxBlockMs + " ms): "
            + "records are sent faster than the broker at " + connection.address() + " takes them");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BrookException("INTERRUPTED", "interrupted while waiting for buffer memory", e);
    }
  }

  private void ensureOpen() {
    BrookException fatal = sender.fatal();
    if (fatal != null) {
      throw fatal;
    }
    if (closed) {
      throw new ClientClosedException("CLOSED", "the producer is closed");
    }
  }

  /** This producer's counters, read live (records and bytes sent, retries, errors, buffer, latency). */
  public ProducerMetrics metrics() {
    return metrics;
  }

  /** Sends every record queued so far at once (no lingering) and waits until each is answered. */
  public void flush() {
    flush(Long.MAX_VALUE);
  }

  private boolean flush(long timeoutNanos) {
    List<CompletableFuture<Void>> pending;
    accumulator.lock.lock();
    try {
      pending = accumulator.pendingBatches();
      accumulator.flushing++;
      accumulator.wake.signalAll();
    } finally {
      accumulator.lock.unlock();
    }
    try {
      CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).get(timeoutNanos, TimeUnit.NANOSECONDS);
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BrookException("INTERRUPTED", "interrupted during flush", e);
    } catch (ExecutionException e) {
      return true; // batch futures only complete normally
    } finally {
      accumulator.lock.lock();
      try {
        accumulator.flushing--;
      } finally {
        accumulator.lock.unlock();
      }
    }
  }

  /** Closes after sending what is queued, waiting as long as that takes. */
  @Override
  public void close() {
    close(Duration.ofMillis(Long.MAX_VALUE));
  }

  /**
   * Stops taking records, sends what is queued, and waits up to the timeout for the answers;
   * records still unanswered then fail with ClientClosedException.
   */
  public void close(Duration timeout) {
    if (closed) {
      return;
    }
    accumulator.lock.lock();
    try {
      closed = true;
      accumulator.closing = true;
      accumulator.wake.signalAll();
    } finally {
      accumulator.lock.unlock();
    }
    long nanos;
    try {
      nanos = timeout.toNanos();
    } catch (ArithmeticException e) {
      nanos = Long.MAX_VALUE;
    }
    if (!flush(nanos)) {
      sender.failRemaining("the producer was closed before the broker answered (close timeout " + timeout + ")");
    }
    sender.stop();
    try {
      senderThread.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    connection.close();
  }
}
