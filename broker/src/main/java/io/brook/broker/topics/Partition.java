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

/**
 * One partition of a topic: its log, the checks on what is appended, and the waiters (long polls,
 * tail streams) woken when records arrive, so that nothing waiting for data holds a thread.
 */
public final class Partition {
  private final Topic topic;
  private final int index;
  private final PartitionLog log;
  private final SegmentRoll roll;
  /** A set: a stream re-registering its waiter while it is still registered must not add a second. */
  private final Set<Runnable> waiters = new LinkedHashSet<>();

  Partition(Topic topic, int index, PartitionLog log, SegmentRoll roll) {
    this.topic = topic;
    this.index = index;
    this.log = log;
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
  public AppendResult append(List<LogRecord> records, long nowMs, int maxBatchRecords) {
    topic.checkRecords(records, maxBatchRecords, name());
    TopicConfig config = topic.config();
    AppendResult result;
    try {
      result = log.append(new AppendBatch(records, nowMs, config.logAppendTime(), ProducerStamp.NONE));
    } catch (StorageException e) {
      throw new BrokerException(BrokerError.STORAGE_ERROR, "append to " + name() + " failed: " + e.getMessage());
    }
    wakeWaiters();
    return result;
  }

  /** Reads records; offsets outside the log's range fail with OFFSET_OUT_OF_RANGE naming the range. */
  public ReadResult read(long offset, int maxRecords, int maxBytes) {
    try {
      return log.read(offset, maxRecords, maxBytes);
    } catch (OffsetOutOfRangeException e) {
      throw new BrokerException(BrokerError.OFFSET_OUT_OF_RANGE, name() + ": " + e.getMessage());
    } catch (StorageException e) {
      throw new BrokerException(BrokerError.STORAGE_ERROR, "read of " + name() + " failed: " + e.getMessage());
    }
  }

  /** Forces what was appended to the device (SYNCED durability). */
  public void flush() {
    try {
      log.flush();
    } catch (StorageException e) {
      throw new BrokerException(BrokerError.STORAGE_ERROR, "flush of " + name() + " failed: " + e.getMessage());
    }
  }

  public long startOffset() {
    return log.startOffset();
  }

  public long endOffset() {
    return log.endOffset();
  }

  public long sizeBytes() {
    return log.sizeBytes();
  }

  public int segmentCount() {
    return log.segmentCount();
  }

  public long offsetForTimestamp(long timestampMs) {
    return log.offsetForTimestamp(timestampMs);
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
      if (log.endOffset() <= offset) {
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
    woken.forEach(Runnable::run);
  }

  void close() {
    log.close();
    wakeWaiters();
  }
}
