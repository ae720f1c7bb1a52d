package io.brook.client.consumer;

import io.brook.client.Header;
import io.brook.client.TopicPartition;
import java.util.List;

/**
 * A record as fetched: where it is (topic, partition, offset), its timestamp (the producer's, or
 * the broker's append time for topics with {@code message.timestamp.type=LogAppendTime}), its
 * deserialized key and value, and its headers in order. The key is {@code null} when the record
 * has none.
 */
public record ConsumerRecord<K, V>(String topic, int partition, long offset, long timestampMs, K key, V value,
    List<Header> headers) {
  public TopicPartition topicPartition() {
    return new TopicPartition(topic, partition);
  }

  /** The last header with this name, or null. */
  public Header lastHeader(String name) {
    for (int i = headers.size() - 1; i >= 0; i--) {
      if (headers.get(i).key().equals(name)) {
        return headers.get(i);
      }
    }
    return null;
  }
}
