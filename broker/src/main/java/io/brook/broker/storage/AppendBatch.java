package io.brook.broker.storage;

import io.brook.broker.records.EncodedRecords;
import io.brook.broker.records.KafkaRecords;
import io.brook.broker.records.LogRecord;
import io.brook.broker.records.ProducerStamp;
import java.util.List;

/**
 * Records appended together to one partition: one stored batch, atomic, contiguous offsets. The
 * records come in one of three forms: a list the log encodes, a section Brook's producer encoded
 * (re-encoded by the log), or a Kafka record batch v2 stored as it came.
 *
 * @param records the records to encode, or null
 * @param encoded the records as Brook's producer encoded them, or null
 * @param kafka a validated Kafka batch, or null; exactly one of the three is set
 * @param appendTimeMs the broker's time of the append; listed records without a timestamp get it
 * @param logAppendTime true when the topic stamps every record with the append time
 * @param producer the idempotent producer's identity, or {@link ProducerStamp#NONE}; a Kafka batch's
 *     must be the one its header holds
 */
public record AppendBatch(List<LogRecord> records, EncodedRecords encoded, KafkaRecords kafka, long appendTimeMs,
    boolean logAppendTime, ProducerStamp producer) {
  public AppendBatch {
    int forms = (records != null ? 1 : 0) + (encoded != null ? 1 : 0) + (kafka != null ? 1 : 0);
    if (forms != 1) {
      throw new IllegalArgumentException("a batch holds exactly one of listed, encoded or Kafka records");
    }
    if (records != null && records.isEmpty()) {
      throw new IllegalArgumentException("a batch needs at least one record");
    }
    producer = producer == null ? ProducerStamp.NONE : producer;
    if (kafka != null && !producer.equals(kafka.producer())) {
      throw new IllegalArgumentException("a Kafka batch's producer fields are " + kafka.producer()
          + ", not " + producer);
    }
  }

  public AppendBatch(List<LogRecord> records, long appendTimeMs, boolean logAppendTime, ProducerStamp producer) {
    this(records, null, null, appendTimeMs, logAppendTime, producer);
  }

  public static AppendBatch of(List<LogRecord> records, long appendTimeMs) {
    return new AppendBatch(records, appendTimeMs, false, ProducerStamp.NONE);
  }

  public static AppendBatch encoded(EncodedRecords encoded, long appendTimeMs, boolean logAppendTime,
      ProducerStamp producer) {
    return new AppendBatch(null, encoded, null, appendTimeMs, logAppendTime, producer);
  }

  public static AppendBatch kafka(KafkaRecords kafka, long appendTimeMs, boolean logAppendTime) {
    return new AppendBatch(null, null, kafka, appendTimeMs, logAppendTime, kafka.producer());
  }

  public int recordCount() {
    return records != null ? records.size() : encoded != null ? encoded.count() : kafka.count();
  }
}
