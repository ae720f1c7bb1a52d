package io.brook.client.ack;

import io.brook.client.TopicPartition;
import io.brook.client.errors.BrookException;

/**
 * Offsets {@code firstOffset..lastOffset} (both included) of one partition whose ack, nack, reject
 * or lease extension the broker did not apply, and why: {@link #error()} is the typed exception of
 * the broker's code ({@code NotLeasedException}, {@code LeaseExpiredException}, {@code
 * AlreadySettledException}, {@code UnknownTopicException}, {@code InvalidRequestException}, ...).
 * A record whose ack failed with {@code LEASE_EXPIRED} or {@code NOT_LEASED} is, or will be,
 * delivered again.
 */
public record SettleFailure(TopicPartition topicPartition, long firstOffset, long lastOffset, BrookException error) {
  public String reason() {
    return error.reason();
  }

  @Override
  public String toString() {
    return topicPartition + " offset" + (firstOffset == lastOffset ? " " + firstOffset : "s " + firstOffset + ".."
        + lastOffset) + ": " + error.getMessage() + " (" + error.reason() + ")";
  }
}
