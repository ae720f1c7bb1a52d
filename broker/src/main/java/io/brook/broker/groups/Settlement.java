package io.brook.broker.groups;

import io.brook.broker.errors.BrokerError;
import java.util.List;

/**
 * What an ack-mode member settles in one call, by offset ranges: acks, nacks (handed back after a
 * delay, or rejected: dead-lettered) and lease extensions. Kafka's share groups say the same with
 * accept, release, reject and renew.
 */
public record Settlement(List<Range> acks, List<Nack> nacks, List<Extension> extensions) {

  /** A range of one partition's offsets, first to last inclusive. */
  public record Range(String topic, int partition, long first, long last) {}

  public record Nack(Range range, long delayMs, boolean reject) {}

  public record Extension(Range range, long leaseMs) {}

  /** Offsets of a range that could not be settled, and why. */
  public record Failure(String topic, int partition, long first, long last, BrokerError error, String message) {}
}
