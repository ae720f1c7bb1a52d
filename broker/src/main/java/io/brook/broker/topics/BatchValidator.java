package io.brook.broker.topics;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.records.EncodedRecords;
import io.brook.broker.records.IncomingBatch;
import io.brook.broker.records.KafkaRecords;
import io.brook.broker.records.LogRecord;
import io.brook.broker.records.ProducerStamp;
import io.brook.protocol.batch.BatchReader;
import io.brook.protocol.batch.CorruptBatchException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The one place a produced batch is checked, whatever door and form it came by (Kafka's
 * LogValidator is the model): the record count against max.batch.records, every gRPC record against
 * the topic's max.record.bytes and timestamp rules, an encoded section's every length, count and
 * header name, and a Kafka batch as Kafka checks it ({@link KafkaBatchValidation}). What it returns,
 * a {@link ValidatedBatch}, is the only thing a {@link Partition} appends, and only this class can
 * make one.
 */
public final class BatchValidator {
  private final int maxBatchRecords;

  /** @param maxBatchRecords the broker's limit on records per batch (max.batch.records) */
  public BatchValidator(int maxBatchRecords) {
    this.maxBatchRecords = maxBatchRecords;
  }

  /**
   * Checks {@code batch} against {@code topic}'s limits as they are now, before anything is written,
   * so a batch the broker spreads over several partitions is refused whole, never half written.
   *
   * @param where what the errors name: the partition ("orders-3"), or the topic when the broker partitions
   * @throws BrokerException INVALID_RECORD, BATCH_TOO_LARGE or RECORD_TOO_LARGE, saying which record
   */
  public ValidatedBatch validate(Topic topic, String where, IncomingBatch batch) {
    if (batch instanceof IncomingBatch.Listed listed) {
      return listed(topic, where, listed.records());
    }
    if (batch instanceof IncomingBatch.Encoded encoded) {
      return encoded(topic, where, encoded);
    }
    if (batch instanceof IncomingBatch.Kafka kafka) {
      KafkaRecords valid = KafkaBatchValidation.check(topic, where, kafka, maxBatchRecords);
      return new ValidatedBatch(topic, null, null, valid, valid.payloadBytes());
    }
    throw new IllegalArgumentException("no validation for " + batch.getClass().getSimpleName());
  }

  private ValidatedBatch listed(Topic topic, String where, List<LogRecord> records) {
    for (int i = 0; i < records.size(); i++) { // a timestamp the producer set must be one: first, as it reads them
      long ts = records.get(i).timestamp();
      if (ts < 0 && ts != IncomingBatch.Listed.NO_TIMESTAMP) {
        throw new BrokerException(BrokerError.INVALID_RECORD, "record " + i + " has a negative timestamp " + ts
            + " (leave timestamp_ms unset for the broker's time)");
      }
    }
    checkCount(records.size(), where, "");
    TopicConfig current = topic.config();
    long payload = 0;
    for (int i = 0; i < records.size(); i++) {
      LogRecord r = records.get(i);
      int size = r.payloadSize();
      checkSize(topic, i, size, current, where);
      payload += size;
    }
    return new ValidatedBatch(topic, records, null, null, payload);
  }

  /** One pass over the section, reading no more than the lengths and header names; nothing is copied. */
  private ValidatedBatch encoded(Topic topic, String where, IncomingBatch.Encoded batch) {
    int count = batch.recordCount();
    checkCount(count, where, "encoded_records.record_count is " + count + "; ");
    TopicConfig current = topic.config();
    byte[] array = batch.array();
    BatchReader in = new BatchReader();
    long maxTimestamp = Long.MIN_VALUE;
    long payload = 0;
    try {
      in.wrapRecords(array, batch.offset(), batch.length(), count, batch.baseTimestamp());
      for (int i = 0; in.next(); i++) {
        int size = in.payloadSize();
        checkSize(topic, i, size, current, where);
        if (in.timestamp() < 0) { // every encoded record carries its time
          throw new BrokerException(BrokerError.INVALID_RECORD, "record " + i + " of the batch for " + where
              + " has a negative timestamp " + in.timestamp());
        }
        for (int h = 0; h < in.headerCount(); h++) {
          if (!Utf8.isValid(array, in.headerNameOffset(h), in.headerNameLength(h))) {
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
    EncodedRecords records = new EncodedRecords(array, batch.offset(), batch.length(), count, batch.baseTimestamp(),
        maxTimestamp, payload);
    return new ValidatedBatch(topic, null, records, null, payload);
  }

  /**
   * A dead letter: a record its own topic accepted, with headers naming its origin added. It is held
   * to none of this topic's limits (Kafka's appends of internal origin skip checks the same way): a
   * record its topic took must always be dead-letterable, and the origin headers make it larger.
   */
  static ValidatedBatch deadLetter(Topic topic, LogRecord record) {
    return new ValidatedBatch(topic, List.of(record), null, null, record.payloadSize());
  }

  private void checkCount(int count, String where, String emptyDetail) {
    if (count <= 0) {
      throw new BrokerException(BrokerError.INVALID_RECORD, "empty batch for " + where + ": " + emptyDetail
          + "send at least one record");
    }
    if (count > maxBatchRecords) {
      throw new BrokerException(BrokerError.BATCH_TOO_LARGE, "batch for " + where + " has " + count
          + " records; the broker takes at most " + maxBatchRecords + " (max.batch.records)");
    }
  }

  /** One record's size (key, value, headers) against max.record.bytes. */
  private static void checkSize(Topic topic, int i, int size, TopicConfig current, String where) {
    if (size > current.maxRecordBytes()) {
      throw new BrokerException(BrokerError.RECORD_TOO_LARGE, "record " + i + " of the batch for " + where
          + " is " + size + " bytes; topic " + topic.name() + " takes at most " + current.maxRecordBytes()
          + " (" + TopicConfig.MAX_RECORD_BYTES + ")");
    }
  }

  /**
   * A batch {@link BatchValidator} checked against one topic's limits: the only thing a partition of
   * that topic appends. Made here alone (its constructor is private to this file).
   */
  public static final class ValidatedBatch {
    private final Topic topic;
    private final List<LogRecord> records;
    private final EncodedRecords encoded;
    private final KafkaRecords kafka;
    private final long payloadBytes;

    private ValidatedBatch(Topic topic, List<LogRecord> records, EncodedRecords encoded, KafkaRecords kafka,
        long payloadBytes) {
      this.topic = topic;
      this.records = records;
      this.encoded = encoded;
      this.kafka = kafka;
      this.payloadBytes = payloadBytes;
    }

    /** The topic whose limits it was checked against. */
    public Topic topic() {
      return topic;
    }

    public int recordCount() {
      return records != null ? records.size() : encoded != null ? encoded.count() : kafka.count();
    }

    /**
     * The producer fields a Kafka batch carries in its header (Kafka's idempotence), or
     * {@link ProducerStamp#NONE}; a gRPC batch's come with its request, not with its records. A Kafka
     * batch that has them is appended with {@link Partition#appendIdempotent} and exactly these.
     */
    public ProducerStamp producer() {
      return kafka != null ? kafka.producer() : ProducerStamp.NONE;
    }

    /** The listed records (for the broker to partition them by key), or null for an encoded batch. */
    public List<LogRecord> records() {
      return records == null ? null : Collections.unmodifiableList(records);
    }

    /**
     * The records at {@code indexes}, still valid: every check is per record, and a part holds fewer
     * records than the whole. How a batch the broker partitions is split without checking it again.
     */
    public ValidatedBatch part(List<Integer> indexes) {
      if (records == null) {
        throw new IllegalStateException("only listed records are split; encoded and Kafka batches name their partition");
      }
      List<LogRecord> part = new ArrayList<>(indexes.size());
      long payload = 0;
      for (int i : indexes) {
        LogRecord r = records.get(i);
        part.add(r);
        payload += r.payloadSize();
      }
      return new ValidatedBatch(topic, part, null, null, payload);
    }

    List<LogRecord> listed() {
      return records;
    }

    EncodedRecords encoded() {
      return encoded;
    }

    KafkaRecords kafka() {
      return kafka;
    }

    long payloadBytes() {
      return payloadBytes;
    }
  }
}
