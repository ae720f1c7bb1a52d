package io.brook.broker.core;

/**
 * A partition to read, and the offset to read it from.
 *
 * @param maxBytes the most this partition may add to the answer (Kafka's partition_max_bytes); the
 *     answer's first batch or record comes whatever its size
 */
public record FetchPosition(String topic, int partition, long offset, int maxBytes) {
  public FetchPosition(String topic, int partition, long offset) {
    this(topic, partition, offset, Integer.MAX_VALUE);
  }
}
