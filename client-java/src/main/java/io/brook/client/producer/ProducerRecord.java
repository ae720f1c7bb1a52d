package io.brook.client.producer;

import io.brook.client.Header;
import java.util.List;
import java.util.Objects;

/**
 * A record to send. {@code partition} null: the producer picks it like Kafka's default
 * partitioner (murmur2 of the serialized key; keyless records stick to one partition per batch).
 * {@code timestampMs} null: the producer's clock when {@code send} is called, as with Kafka's
 * producer (a topic with {@code message.timestamp.type=LogAppendTime} stores the broker's append
 * time either way). {@code key} null: no key.
 */
public record ProducerRecord<K, V>(String topic, Integer partition, Long timestampMs, K key, V value,
    List<Header> headers) {
  public ProducerRecord {
    Objects.requireNonNull(topic, "topic");
    if (timestampMs != null && timestampMs < 0) { // as Kafka's: refused here, not with the whole batch
      throw new IllegalArgumentException("timestampMs must be >= 0 (null: the producer's clock), got " + timestampMs);
    }
    headers = headers == null ? List.of() : List.copyOf(headers);
  }

  public ProducerRecord(String topic, K key, V value) {
    this(topic, null, null, key, value, List.of());
  }

  public ProducerRecord(String topic, V value) {
    this(topic, null, null, null, value, List.of());
  }

  public ProducerRecord(String topic, Integer partition, K key, V value) {
    this(topic, partition, null, key, value, List.of());
  }

  public ProducerRecord<K, V> withHeaders(List<Header> newHeaders) {
    return new ProducerRecord<>(topic, partition, timestampMs, key, value, newHeaders);
  }
}
