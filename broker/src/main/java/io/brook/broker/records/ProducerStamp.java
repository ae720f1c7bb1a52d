package io.brook.broker.records;

/**
 * The idempotent producer fields stored with every batch (Kafka's producer id, epoch and base
 * sequence), so producer state can be rebuilt from the log itself after a crash.
 */
public record ProducerStamp(long producerId, short epoch, int baseSequence) {
  public static final ProducerStamp NONE = new ProducerStamp(-1, (short) -1, -1);

  public boolean isNone() {
    return producerId < 0;
  }
}
