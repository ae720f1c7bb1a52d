package io.brook.broker.topics;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.producers.ProducerState;
import io.brook.broker.storage.AppendBatch;
import io.brook.broker.storage.AppendResult;
import io.brook.broker.storage.BatchReadResult;
import io.brook.broker.records.LogRecord;
import io.brook.broker.storage.OffsetOutOfRangeException;
import io.brook.broker.storage.PartitionLog;
import io.brook.broker.records.ProducerStamp;
import io.brook.broker.storage.ReadResult;
import io.brook.broker.storage.SegmentInfo;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.storage.StorageException;
import io.brook.broker.topics.BatchValidator.ValidatedBatch;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition of a topic: its log, the checks on what is appended, and the waiters (long polls,
 * tail streams) woken when records arrive, so that nothing waiting for data holds a thread.
 */
public final class Partition {
  private static final Logger log = LoggerFactory.getLogger(Partition.class);
  private final Topic topic;
  private final int index;
  private final PartitionLog partitionLog;
  private final SegmentRoll roll;
  /** A set: a stream re-registering its waiter while it is still registered must not add a second. */
  private final Set<Runnable> waiters = new LinkedHashSet<>();
  private volatile boolean closed;
  private final java.util.concurrent.atomic.AtomicLong forces = new java.util.concurrent.atomic.AtomicLong();

  /** Guarded by its own monitor, which is held across an idempotent batch's check, append and record. */
  private final ProducerState producers;
  private final java.nio.file.Path snapshotFile;
  private long snapshotOffset = -1;

  Partition(Topic topic, int index, PartitionLog log, SegmentRoll roll, java.nio.file.Path dir) {
    this.topic = topic;
    this.index = index;
    this.partitionLog = log;
    this.roll = roll;
    this.snapshotFile = dir.resolve(SNAPSHOT_FILE);
    this.producers = rebuildProducers();
  }

  static final String SNAPSHOT_FILE = "producer-state.snapshot";

  /**
   * Producer state comes from the last snapshot plus the batches the log holds after it (never
   * from memory alone), so it survives kill -9, and retention deleting the segments that first
   * recorded a producer.
   */
  private ProducerState rebuildProducers() {
    ProducerState.Loaded loaded = ProducerState.readSnapshot(snapshotFile);
    ProducerState state = loaded == null || loaded.offset() > partitionLog.endOffset() ? new ProducerState()
        : loaded.state();
    long from = loaded == null || loaded.offset() > partitionLog.endOffset() ? 0 : loaded.offset();
    partitionLog.forEachBatch(from, b -> {
      if (!b.producer().isNone()) {
        state.record(b.producer().producerId(), b.producer().epoch(), b.producer().baseSequence(), b.recordCount(),
            b.baseOffset(), b.appendTimeMs());
      }
    });
    return state;
  }

  /** What an idempotent append did: appended, or recognized a retry and answered the first write. */
  public record IdempotentAppend(AppendResult result, boolean duplicate) {}

  /**
   * Appends an idempotent producer's batch unless it repeats one of the producer's last five.
   *
   * @param batch checked against this partition's topic by {@link BatchValidator}
   */
  public IdempotentAppend appendIdempotent(ValidatedBatch batch, long nowMs, ProducerStamp stamp) {
    checkOpen();
    return appendIdempotent(toAppend(batch, nowMs, stamp), batch.payloadBytes());
  }

  private IdempotentAppend appendIdempotent(AppendBatch batch, long payloadBytes) {
    ProducerStamp stamp = batch.producer();
    int count = batch.recordCount();
    synchronized (producers) {
      ProducerState.Batch earlier = producers.check(stamp.producerId(), stamp.epoch(), stamp.baseSequence(), count);
      if (earlier != null) {
        return new IdempotentAppend(new AppendResult(earlier.baseOffset(), earlier.count(), earlier.appendTimeMs(),
            startOffset()), true);
      }
      AppendResult r = appendChecked(batch, payloadBytes);
      producers.record(stamp.producerId(), stamp.epoch(), stamp.baseSequence(), count, r.baseOffset(),
          r.appendTimeMs());
      return new IdempotentAppend(r, false);
    }
  }

  public int producerCount() {
    synchronized (producers) {
      return producers.size();
    }
  }

  /** Forgets producers idle since {@code olderThanMs}. */
  public int expireProducers(long olderThanMs) {
    synchronized (producers) {
      return producers.expire(olderThanMs);
    }
  }

  /** Writes a producer-state snapshot when anything was appended since the last one. */
  public void snapshotProducers() {
    synchronized (producers) {
      long end = partitionLog.endOffset();
      if (closed || end == snapshotOffset
          || (producers.size() == 0 && !java.nio.file.Files.exists(snapshotFile))) {
        return; // nothing new, or never used by an idempotent producer
      }
      try {
        producers.writeSnapshot(snapshotFile, end);
        snapshotOffset = end;
      } catch (java.io.IOException e) {
        log.warn("Cannot write the producer snapshot of {}: {}", name(), e.getMessage());
      }
    }
  }

  public Topic topic() {
    return topic;
  }

  public int index() {
    return index;
  }

  public SegmentRoll segmentRoll() {
    return roll;
  }

  public String name() {
    return topic.name() + "-" + index;
  }

  /** After its topic is deleted a partition answers UNKNOWN_TOPIC, never a storage error. */
  private void checkOpen() {
    if (closed) {
      throw new BrokerException(BrokerError.UNKNOWN_TOPIC, "topic '" + topic.name() + "' was deleted");
    }
  }

  /**
   * Appends one batch.
   *
   * @param batch checked against this partition's topic by {@link BatchValidator}
   */
  public AppendResult append(ValidatedBatch batch, long nowMs) {
    checkOpen();
    return appendChecked(toAppend(batch, nowMs, ProducerStamp.NONE), batch.payloadBytes());
  }

  /**
   * Appends a dead letter: a record its own topic accepted, with headers naming its origin added
   * (see {@link BatchValidator#deadLetter} for why it is held to none of this topic's limits).
   */
  public AppendResult appendDeadLetter(LogRecord record, long nowMs) {
    return append(BatchValidator.deadLetter(topic, record), nowMs);
  }

  /** The batch for the log; one checked against another topic's limits is a programming error. */
  private AppendBatch toAppend(ValidatedBatch batch, long nowMs, ProducerStamp stamp) {
    if (batch.topic() != topic) {
      throw new IllegalArgumentException("a batch validated for topic " + batch.topic().name() + " (id "
          + batch.topic().id() + ") cannot be appended to " + name() + " (id " + topic.id() + ")");
    }
    boolean logAppendTime = topic.config().logAppendTime();
    if (batch.kafka() != null) { // its producer fields travel in its header: the stamp must be them
      if (!stamp.equals(batch.producer())) {
        throw new IllegalArgumentException("a Kafka batch with producer fields " + batch.producer()
            + " is appended with exactly those (appendIdempotent), got " + stamp);
      }
      return AppendBatch.kafka(batch.kafka(), nowMs, logAppendTime);
    }
    return batch.encoded() != null ? AppendBatch.encoded(batch.encoded(), nowMs, logAppendTime, stamp)
        : new AppendBatch(batch.listed(), nowMs, logAppendTime, stamp);
  }

  private AppendResult appendChecked(AppendBatch batch, long payloadBytes) {
    AppendResult result;
    try {
      result = partitionLog.append(batch);
    } catch (StorageException e) {
      checkOpen();
      throw new BrokerException(BrokerError.STORAGE_ERROR, "append to " + name() + " failed: " + e.getMessage());
    }
    topic.traffic().produced(batch.recordCount(), payloadBytes);
    wakeWaiters();
    return result;
  }

  /** Reads records; offsets outside the log's range fail with OFFSET_OUT_OF_RANGE naming the range. */
  public ReadResult read(long offset, int maxRecords, int maxBytes) {
    return reading(() -> partitionLog.read(offset, maxRecords, maxBytes));
  }

  /** Reads whole stored batches (see {@link PartitionLog#readBatches}), with the errors of {@link #read}. */
  public BatchReadResult readBatches(long offset, int maxRecords, int maxBytes, boolean atLeastOne) {
    return reading(() -> partitionLog.readBatches(offset, maxRecords, maxBytes, atLeastOne));
  }

  private <T> T reading(java.util.function.Supplier<T> read) {
    checkOpen();
    try {
      return read.get();
    } catch (OffsetOutOfRangeException e) {
      throw new BrokerException(BrokerError.OFFSET_OUT_OF_RANGE, name() + ": " + e.getMessage());
    } catch (StorageException e) {
      checkOpen(); // closed under the read: the topic was deleted
      throw new BrokerException(BrokerError.STORAGE_ERROR, "read of " + name() + " failed: " + e.getMessage());
    }
  }

  /** Forces what was appended to the device (SYNCED durability). */
  public void flush() {
    checkOpen();
    try {
      partitionLog.flush();
      forces.incrementAndGet();
    } catch (StorageException e) {
      checkOpen();
      throw new BrokerException(BrokerError.STORAGE_ERROR, "flush of " + name() + " failed: " + e.getMessage());
    }
  }

  /** Forces done for SYNCED produces (a counter tests and metrics read; group commit keeps it low). */
  public long forceCount() {
    return forces.get();
  }

  public long startOffset() {
    return partitionLog.startOffset();
  }

  public long endOffset() {
    return partitionLog.endOffset();
  }

  public long sizeBytes() {
    return partitionLog.sizeBytes();
  }

  public int segmentCount() {
    return partitionLog.segmentCount();
  }

  public List<SegmentInfo> segments() {
    checkOpen();
    try {
      return partitionLog.segments();
    } catch (StorageException e) {
      checkOpen();
      throw new BrokerException(BrokerError.STORAGE_ERROR, "segments of " + name() + ": " + e.getMessage());
    }
  }

  /**
   * Deletes the oldest segments (never the one being written). Producer state is snapshotted first,
   * so producers whose only batches were in them are still known after a restart.
   */
  public long deleteOldestSegments(int count) {
    checkOpen();
    snapshotProducers();
    try {
      return partitionLog.deleteOldestSegments(count);
    } catch (StorageException e) {
      checkOpen();
      throw new BrokerException(BrokerError.STORAGE_ERROR, "retention of " + name() + ": " + e.getMessage());
    }
  }

  public long offsetForTimestamp(long timestampMs) {
    checkOpen();
    try {
      return partitionLog.offsetForTimestamp(timestampMs);
    } catch (StorageException e) {
      checkOpen();
      throw new BrokerException(BrokerError.STORAGE_ERROR, "time lookup in " + name() + " failed: " + e.getMessage());
    }
  }

  /** Checks that an offset lies in [start, end], for positions a reader is about to start at. */
  public void checkInRange(long offset) {
    long start = startOffset();
    long end = endOffset();
    if (offset < start || offset > end) {
      throw new BrokerException(BrokerError.OFFSET_OUT_OF_RANGE,
          name() + ": " + new OffsetOutOfRangeException(offset, start, end).getMessage());
    }
  }

  /**
   * Runs {@code waiter} once, as soon as the end offset is beyond {@code offset} (at once if it
   * already is). The waiter runs on the appending thread: it must only hand work to an executor.
   *
   * @return false when it ran at once
   */
  public boolean whenDataBeyond(long offset, Runnable waiter) {
    synchronized (waiters) {
      if (!closed && partitionLog.endOffset() <= offset) { // a closed partition runs it at once: no data will come
        waiters.add(waiter);
        return true;
      }
    }
    waiter.run();
    return false;
  }

  /** How many long polls and tails wait on this partition now. */
  public int waiterCount() {
    synchronized (waiters) {
      return waiters.size();
    }
  }

  public void cancelWaiter(Runnable waiter) {
    synchronized (waiters) {
      waiters.remove(waiter);
    }
  }

  /** Wakes every waiter: after an append, and when the partition closes. */
  void wakeWaiters() {
    List<Runnable> woken;
    synchronized (waiters) {
      if (waiters.isEmpty()) {
        return;
      }
      woken = new ArrayList<>(waiters);
      waiters.clear();
    }
    for (Runnable w : woken) {
      try {
        w.run();
      } catch (RuntimeException e) { // one failing waiter must not starve the others or fail the append
        log.warn("A waiter on {} failed: {}", name(), e.toString());
      }
    }
  }

  void close() {
    synchronized (waiters) {
      closed = true;
    }
    partitionLog.close();
    wakeWaiters();
  }
}
