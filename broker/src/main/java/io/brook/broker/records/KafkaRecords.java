package io.brook.broker.records;

/**
 * A Kafka record batch v2 the topic layer validated, still in the request's memory: the log writes
 * Brook's prefix and the batch's header with the offset it assigns (outside the CRC), then copies
 * the records as they are, compressed or not.
 *
 * @param array holds the Kafka batch at {@code [offset, offset + length)}; not copied, not changed
 * @param count its records (offset deltas 0 to count - 1)
 * @param maxTimestamp the largest record timestamp (create time), for the time index; the stored
 *     header gets it if the producer's differs, as Kafka's LogValidator corrects it
 * @param payloadBytes keys, values and headers of all records (decompressed), for the traffic counters
 * @param producer the producer fields of its header, or {@link ProducerStamp#NONE}
 */
public record KafkaRecords(byte[] array, int offset, int length, int count, long maxTimestamp, long payloadBytes,
    ProducerStamp producer) {
  public KafkaRecords {
    if (count <= 0) {
      throw new IllegalArgumentException("a batch needs at least one record");
    }
    if (offset < 0 || length < 0 || offset > array.length - length) {
      throw new IllegalArgumentException("[" + offset + ", " + offset + " + " + length + ") is outside "
          + array.length + " bytes");
    }
  }
}
