package io.brook.client.producer;

import io.brook.client.TopicPartition;

/**
 * Where a sent record was written. {@code timestampMs} is the record's own timestamp, or the
 * broker's append time when the record had none; {@code appendTimeMs} is always the broker's
 * time of the append (for a retried batch the broker recognised as written before, the time of
 * that first write).
 */
public record RecordMetadata(String topic, int partition, long offset, long timestampMs, long appendTimeMs) {
  public TopicPartition topicPartition() {
    return new TopicPartition(topic, partition);
  }
}
