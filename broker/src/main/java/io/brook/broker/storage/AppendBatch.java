package io.brook.broker.storage;

import java.util.List;

/**
 * Records appended together to one partition: one stored batch, atomic, contiguous offsets.
 *
 * @param appendTimeMs the broker's time of the append; records without a timestamp get it
 * @param logAppendTime true when the topic stamps every record with the append time
 * @param producer the idempotent producer's identity, or {@link ProducerStamp#NONE}
 */
public record AppendBatch(List<LogRecord> records, long appendTimeMs, boolean logAppendTime, ProducerStamp producer) {
  public AppendBatch {
    if (records == null || records.isEmpty()) {
      throw new IllegalArgumentException("a batch needs at least one record");
    }
    producer = producer == null ? ProducerStamp.NONE : producer;
  }

  public static AppendBatch of(List<LogRecord> records, long appendTimeMs) {
    return new AppendBatch(records, appendTimeMs, false, ProducerStamp.NONE);
  }
}
