package io.brook.broker.core;

import io.brook.broker.errors.BrokerException;
import io.brook.broker.records.LogRecord;
import io.brook.broker.storage.ReadResult;
import io.brook.broker.topics.Partition;
import io.brook.broker.topics.TopicManager;

/**
 * Offsets by time as Kafka's ListOffsets answers them: the first record at or after a timestamp, and
 * the record with the largest timestamp, each with the record's own timestamp. Errors are the
 * answer's, not thrown.
 */
public final class OffsetTimes {
  private final TopicManager topics;

  public OffsetTimes(TopicManager topics) {
    this.topics = topics;
  }

  /** The first record whose timestamp is at least {@code timestampMs}; none when every record is older. */
  public TimedOffset atOrAfter(String topic, int partition, long timestampMs) {
    try {
      Partition p = topics.get(topic).partition(partition);
      return recordAt(p, p.offsetForTimestamp(timestampMs));
    } catch (BrokerException e) {
      return new TimedOffset(-1, -1, e.error(), e.getMessage());
    }
  }

  /**
   * The first record holding the partition's largest timestamp; none when the partition is empty.
   * The time index answers only "first record reaching T", so the largest T that still finds a record
   * is searched for: at most 64 index lookups, for a query clients make rarely.
   */
  public TimedOffset maxTimestamp(String topic, int partition) {
    try {
      Partition p = topics.get(topic).partition(partition);
      long end = p.endOffset();
      if (p.startOffset() >= end) {
        return TimedOffset.NONE;
      }
      if (p.offsetForTimestamp(Long.MAX_VALUE) < end) {
        return recordAt(p, p.offsetForTimestamp(Long.MAX_VALUE));
      }
      long reached = Long.MIN_VALUE; // some record's timestamp is >= reached (the log is not empty)
      long missed = Long.MAX_VALUE; // no record's timestamp is >= missed
      while (Long.compareUnsigned(missed - reached, 1) > 0) { // missed > reached: unsigned, the difference never overflows
        long mid = (reached & missed) + ((reached ^ missed) >> 1); // the floor of the mean, without overflow
        if (p.offsetForTimestamp(mid) < end) {
          reached = mid;
        } else {
          missed = mid;
        }
      }
      return recordAt(p, p.offsetForTimestamp(reached));
    } catch (BrokerException e) {
      return new TimedOffset(-1, -1, e.error(), e.getMessage());
    }
  }

  /** The offset and timestamp of the record at {@code offset}; none at or past the end. */
  private static TimedOffset recordAt(Partition p, long offset) {
    if (offset < 0 || offset >= p.endOffset()) {
      return TimedOffset.NONE;
    }
    ReadResult r = p.read(offset, 1, 1);
    for (LogRecord record : r.records()) {
      if (record.offset() == offset) {
        return new TimedOffset(offset, record.timestamp(), null, null);
      }
    }
    return TimedOffset.NONE;
  }
}
