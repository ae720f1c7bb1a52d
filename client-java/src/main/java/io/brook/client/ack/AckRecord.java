package io.brook.client.ack;

import io.brook.client.Header;
import io.brook.client.TopicPartition;
import io.brook.client.consumer.ConsumerRecord;
import java.time.Instant;
import java.util.List;

/**
 * A record leased to this consumer: the record itself, which delivery this is ({@link
 * #deliveryAttempt()}: 1 the first time, higher after nacks, expired leases or broker restarts) and
 * until when the lease runs ({@link #leaseDeadline()}). Settle it with {@link AckConsumer#ack},
 * {@link AckConsumer#nack} or {@link AckConsumer#reject} before then, or extend the lease.
 */
public final class AckRecord<K, V> {
  private final ConsumerRecord<K, V> record;
  private final int deliveryAttempt;
  private final long leaseDeadlineMs;

  public AckRecord(ConsumerRecord<K, V> record, int deliveryAttempt, long leaseDeadlineMs) {
    this.record = record;
    this.deliveryAttempt = deliveryAttempt;
    this.leaseDeadlineMs = leaseDeadlineMs;
  }

  public ConsumerRecord<K, V> record() {
    return record;
  }

  public String topic() {
    return record.topic();
  }

  public int partition() {
    return record.partition();
  }

  public TopicPartition topicPartition() {
    return record.topicPartition();
  }

  /** The offset in its partition: what an ack names. */
  public long offset() {
    return record.offset();
  }

  public long timestampMs() {
    return record.timestampMs();
  }

  public K key() {
    return record.key();
  }

  public V value() {
    return record.value();
  }

  public List<Header> headers() {
    return record.headers();
  }

  /** 1 on the first delivery, growing with each redelivery (the broker journals it: restarts count). */
  public int deliveryAttempt() {
    return deliveryAttempt;
  }

  /** When the lease runs out, in ms since the epoch, as the broker's clock said when it delivered. */
  public long leaseDeadlineMs() {
    return leaseDeadlineMs;
  }

  public Instant leaseDeadline() {
    return Instant.ofEpochMilli(leaseDeadlineMs);
  }

  @Override
  public String toString() {
    return "AckRecord(" + record.topic() + "-" + record.partition() + "@" + record.offset() + ", attempt "
        + deliveryAttempt + ")";
  }
}
