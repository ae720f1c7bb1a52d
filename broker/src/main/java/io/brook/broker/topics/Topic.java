package io.brook.broker.topics;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import com.google.protobuf.UnsafeByteOperations;
import io.brook.broker.records.EncodedRecords;
import io.brook.broker.records.LogRecord;
import io.brook.protocol.batch.BatchReader;
import io.brook.protocol.batch.CorruptBatchException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

/** A topic: a name, an id unique to this creation, its config and its partitions. */
public final class Topic {
  private final String name;
  private final UUID id;
  private final long createdAtMs;
  private volatile TopicConfig config;
  private final List<Partition> partitions = new CopyOnWriteArrayList<>();
  private final AtomicInteger nextKeylessPartition = new AtomicInteger();
  private final TopicTraffic traffic = new TopicTraffic();

  Topic(String name, UUID id, long createdAtMs, TopicConfig config) {
    this.name = name;
    this.id = id;
    this.createdAtMs = createdAtMs;
    this.config = config;
  }

  public String name() {
    return name;
  }

  /** Records in and out since start, for metrics. */
  public TopicTraffic traffic() {
    return traffic;
  }

  public UUID id() {
    return id;
  }

  public long createdAtMs() {
    return createdAtMs;
  }

  public TopicConfig config() {
    return config;
  }

  void config(TopicConfig c) {
    config = c;
  }

  public List<Partition> partitions() {
    return List.copyOf(partitions);
  }

  public int partitionCount() {
    return partitions.size();
  }

  public Partition partition(int index) {
    List<Partition> ps = partitions;
    if (index < 0 || index >= ps.size()) {
      throw new BrokerException(BrokerError.UNKNOWN_PARTITION, "topic " + name + " has no partition " + index
          + " (it has " + ps.size() + (ps.size() == 1 ? " partition: 0)" : " partitions: 0 to " + (ps.size() - 1) + ")"));
    }
    return ps.get(index);
  }

  /**
   * Checks a batch against the topic's and broker's limits before anything is written, so a batch
   * the broker spreads over several partitions is refused whole, never half written.
   */
  public void checkRecords(List<LogRecord> records, int maxBatchRecords, String where) {
    checkCount(records.size(), maxBatchRecords, where, "");
    TopicConfig current = config;
    for (int i = 0; i < records.size(); i++) {
      LogRecord r = records.get(i);
      checkRecord(i, r.payloadSize(), r.timestamp(), -1, current, where); // -1: the append time
    }
  }

  private static void checkCount(int count, int maxBatchRecords, String where, String emptyDetail) {
    if (count <= 0) {
      throw new BrokerException(BrokerError.INVALID_RECORD, "empty batch for " + where + ": " + emptyDetail
          + "send at least one record");
    }
    if (count > maxBatchRecords) {
      throw new BrokerException(BrokerError.BATCH_TOO_LARGE, "batch for " + where + " has " + count
          + " records; the broker takes at most " + maxBatchRecords + " (max.batch.records)");
    }
  }

  /** One record's size against max.message.bytes, and its timestamp against the lowest allowed. */
  private void checkRecord(int i, int size, long timestamp, long lowestTimestamp, TopicConfig current, String where) {
    if (size > current.maxMessageBytes()) {
      throw new BrokerException(BrokerError.RECORD_TOO_LARGE, "record " + i + " of the batch for " + where
          + " is " + size + " bytes; topic " + name + " takes at most " + current.maxMessageBytes()
          + " (max.message.bytes)");
    }
    if (timestamp < lowestTimestamp) {
      throw new BrokerException(BrokerError.INVALID_RECORD, "record " + i + " of the batch for " + where
          + " has a negative timestamp " + timestamp);
    }
  }

  /**
   * Checks records a producer sent already encoded ({@code ProduceBatch.encoded_records}) against
   * the same limits as {@link #checkRecords}, and that every length and the count hold exactly, so
   * that what is stored reads back. One pass, reading no more than the lengths and header names.
   *
   * @return the records, with their largest timestamp and payload size found on the way
   */
  public EncodedRecords checkEncoded(byte[] array, int offset, int length, int count, long baseTimestamp,
      int maxBatchRecords, String where) {
    checkCount(count, maxBatchRecords, where, "encoded_records.record_count is " + count + "; ");
    TopicConfig current = config;
    BatchReader in = new BatchReader();
    long maxTimestamp = Long.MIN_VALUE;
    long payload = 0;
    try {
      in.wrapRecords(array, offset, length, count, baseTimestamp);
      for (int i = 0; in.next(); i++) {
        int size = in.payloadSize();
        checkRecord(i, size, in.timestamp(), 0, current, where); // every encoded record carries its time
        for (int h = 0; h < in.headerCount(); h++) {
          if (!UnsafeByteOperations.unsafeWrap(array, in.headerNameOffset(h), in.headerNameLength(h)).isValidUtf8()) {
            throw new BrokerException(BrokerError.INVALID_RECORD, "record " + i + " of the batch for " + where
                + " has a header name that is not UTF-8 (header " + h + ")");
          }
        }
        maxTimestamp = Math.max(maxTimestamp, in.timestamp());
        payload += size;
      }
    } catch (CorruptBatchException e) {
      throw new BrokerException(BrokerError.INVALID_RECORD, "encoded_records of the batch for " + where
          + " do not hold " + count + " well-formed records: " + e.getMessage());
    }
    return new EncodedRecords(array, offset, length, count, baseTimestamp, maxTimestamp, payload);
  }

  /** Where the broker puts a batch's keyless records: the next partition, round robin per batch. */
  public int nextKeylessPartition() {
    return Math.floorMod(nextKeylessPartition.getAndIncrement(), partitions.size());
  }

  void addPartition(Partition p) {
    partitions.add(p);
  }

  void close() {
    partitions.forEach(Partition::close);
  }
}
