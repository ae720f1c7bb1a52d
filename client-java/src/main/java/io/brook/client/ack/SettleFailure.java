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
 *
 * <p>{@link AckConsumer#close()} also reports settles that never reached the broker, reason {@link
 * #NOT_SENT}, and settles it sent whose outcome it could not learn, reason {@link #OUTCOME_UNKNOWN};
 * the message says why, the cause (when there is one) is the error behind it.
 */
public record SettleFailure(TopicPartition topicPartition, long firstOffset, long lastOffset, BrookException error) {
  /** The settles were never sent: their records are delivered again. */
  public static final String NOT_SENT = "NOT_SENT";
  /** The settles were sent, but the stream or call failed before the broker confirmed them. */
  public static final String OUTCOME_UNKNOWN = "OUTCOME_UNKNOWN";

  public String reason() {
    return error.reason();
  }

  @Override
  public String toString() {
    return topicPartition + " offset" + (firstOffset == lastOffset ? " " + firstOffset : "s " + firstOffset + ".."
        + lastOffset) + ": " + error.getMessage() + " (" + error.reason() + ")";
  }
}
