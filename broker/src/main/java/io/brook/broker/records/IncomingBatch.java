package io.brook.broker.records;

import io.brook.protocol.batch.KafkaBatch;
import java.util.List;

/**
 * A batch of records as a producer sent it, before anything checked it: one case per form a door
 * can receive. Every case goes through {@code topics.BatchValidator} once, and only what it returns
 * can be appended.
 */
public sealed interface IncomingBatch {
  /** How many records the producer says the batch holds. */
  int recordCount();

  /**
   * Records listed one by one (gRPC {@code ProduceBatch.records}).
   *
   * @param records each with the timestamp its producer gave, or {@link #NO_TIMESTAMP} for the append
   *     time; any other negative timestamp is refused (in the log, a negative one means the append time)
   */
  record Listed(List<LogRecord> records) implements IncomingBatch {
    /** A record sent without a timestamp: it gets the append time. */
    public static final long NO_TIMESTAMP = Long.MIN_VALUE;

    @Override
    public int recordCount() {
      return records.size();
    }
  }

  /**
   * Records already in the stored records-section format (gRPC {@code ProduceBatch.encoded_records},
   * D31), read in place in the request's memory: nothing here is trusted until validated.
   *
   * @param array holds the section at {@code [offset, offset + length)}
   * @param recordCount the count the producer declares; the section must hold exactly that many
   * @param baseTimestamp what the records' timestamp deltas are from
   */
  record Encoded(byte[] array, int offset, int length, int recordCount, long baseTimestamp)
      implements IncomingBatch {}

  /**
   * One Kafka record batch v2 exactly as a Kafka producer sent it (D37), read in place in the
   * request's memory: header, then records, compressed or not. Nothing here is trusted until validated.
   *
   * @param array holds the batch at {@code [offset, offset + length)}; not copied, not changed
   * @param limit which size rule holds it: each door's clients meet the rule they know (D37)
   */
  record Kafka(byte[] array, int offset, int length, SizeLimit limit) implements IncomingBatch {
    public Kafka {
      if (offset < 0 || length < 0 || offset > array.length - length) {
        throw new IllegalArgumentException("[" + offset + ", " + offset + " + " + length + ") is outside "
            + array.length + " bytes");
      }
      if (limit == null) {
        throw new IllegalArgumentException("a Kafka batch names the size rule it is held to");
      }
    }

    /** A batch the Kafka door received: Kafka's rule. */
    public Kafka(byte[] array, int offset, int length) {
      this(array, offset, length, SizeLimit.BATCH);
    }

    /** The size rules a Kafka batch can be held to. */
    public enum SizeLimit {
      /** The topic's max.message.bytes on the batch as stored, after compression: Kafka's rule (the Kafka door). */
      BATCH,
      /** The topic's max.record.bytes on each record: Brook's rule (gRPC's kafka_batch, from Brook's producers). */
      RECORD
    }

    /** The count its header declares; 0 when the bytes are too few to hold a header. */
    @Override
    public int recordCount() {
      return length < KafkaBatch.HEADER_SIZE ? 0 : KafkaBatch.recordCount(array, offset);
    }
  }
}
