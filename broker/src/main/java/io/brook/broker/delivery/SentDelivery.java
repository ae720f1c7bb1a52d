package io.brook.broker.delivery;

/** Which delivery of which record went out on a member's stream (without the record itself). */
public record SentDelivery(String topic, int partition, long offset, int attempt) {
  public static SentDelivery of(Delivery d) {
    return new SentDelivery(d.topic(), d.partition(), d.record().offset(), d.attempt());
  }
}
