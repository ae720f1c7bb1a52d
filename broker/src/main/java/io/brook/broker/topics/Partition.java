package io.brook.broker.topics;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.storage.AppendBatch;
import io.brook.broker.storage.AppendResult;
import io.brook.broker.storage.LogRecord;
import io.brook.broker.storage.OffsetOutOfRangeException;
import io.brook.broker.storage.PartitionLog;
import io.brook.broker.storage.ProducerStamp;
import io.brook.broker.storage.ReadResult;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.storage.StorageException;
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

  Partition(Topic topic, int index, PartitionLog log, SegmentRoll roll) {
    this.topic = topic;
    this.index = index;
    this.partitionLog = log;
    this.roll = roll;
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

  /**
   * Checks and appends one batch.
   *
   * @param maxBatchRecords the broker's limit on records per batch
   */
  /** After its topic is deleted a partition answers UNKNOWN_TOPIC, never a storage error. */
  private void checkOpen() {
    if (closed) {
      throw new BrokerException(BrokerError.UNKNOWN_TOPIC, "topic '" + topic.name() + "' was deleted");
    }
  }

  public AppendResult append(List<LogRecord> records, long nowMs, int maxBatchRecords) {
    checkOpen();
    topic.checkRecords(records, maxBatchRecords, name());
    TopicConfig config = topic.config();
    AppendResult result;
    try {
      result = partitionLog.append(new AppendBatch(records, nowMs, config.logAppendTime(), ProducerStamp.NONE));
    } catch (StorageException e) {
      checkOpen();
      throw new BrokerException(BrokerError.STORAGE_ERROR, "append to " + name() + " failed: " + e.getMessage());
    }
    wakeWaiters();
    return result;
  }

  /** Reads records; offsets outside the log's range fail with OFFSET_OUT_OF_RANGE naming the range. */
  public ReadResult read(long offset, int maxRecords, int maxBytes) {
    checkOpen();
    try {
      return partitionLog.read(offset, maxRecords, maxBytes);
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
