package io.brook.broker.storage;

import io.brook.broker.records.LogRecord;
import io.brook.broker.records.EncodedRecords;
import io.brook.broker.records.ProducerStamp;
import java.util.List;

/**
 * Records appended together to one partition: one stored batch, atomic, contiguous offsets. The
 * records come either as a list the log encodes, or already encoded by the producer.
 *
 * @param records the records to encode, or null when {@code encoded} holds them
 * @param encoded the records as the producer encoded them, or null when {@code records} holds them
 * @param appendTimeMs the broker's time of the append; listed records without a timestamp get it
 * @param logAppendTime true when the topic stamps every record with the append time
 * @param producer the idempotent producer's identity, or {@link ProducerStamp#NONE}
 */
public record AppendBatch(List<LogRecord> records, EncodedRecords encoded, long appendTimeMs, boolean logAppendTime,
    ProducerStamp producer) {
  public AppendBatch {
    if ((records == null) == (encoded == null)) {
      throw new IllegalArgumentException("a batch holds either listed or encoded records");
    }
    if (records != null && records.isEmpty()) {
      throw new IllegalArgumentException("a batch needs at least one record");
    }
    producer = producer == null ? ProducerStamp.NONE : producer;
  }

  public AppendBatch(List<LogRecord> records, long appendTimeMs, boolean logAppendTime, ProducerStamp producer) {
    this(records, null, appendTimeMs, logAppendTime, producer);
  }

  public static AppendBatch of(List<LogRecord> records, long appendTimeMs) {
    return new AppendBatch(records, appendTimeMs, false, ProducerStamp.NONE);
  }

  public static AppendBatch encoded(EncodedRecords encoded, long appendTimeMs, boolean logAppendTime,
      ProducerStamp producer) {
    return new AppendBatch(null, encoded, appendTimeMs, logAppendTime, producer);
  }

  public int recordCount() {
    return records != null ? records.size() : encoded.count();
  }
}
