package io.brook.client.producer;

import io.brook.client.TopicPartition;

/**
 * Where a sent record was written. {@code timestampMs} is the record's stored timestamp: its own,
 * or the producer's clock at {@code send} when it had none, or the append time for a topic with
 * {@code message.timestamp.type=LogAppendTime}; {@code appendTimeMs} is always the broker's time of
 * the append (for a retried batch the broker recognised as written before, the time of that first
 * write).
 */
public record RecordMetadata(String topic, int partition, long offset, long timestampMs, long appendTimeMs) {
  public TopicPartition topicPartition() {
    return new TopicPartition(topic, partition);
  }
}
