package io.brook.broker.topics;

/**
 * Records retention must keep for a reader that has not had them yet (a forward route with
 * retention.waits, D68): retention deletes a segment only when every record in it is below
 * {@link #keepFrom}. The holder decides when it stops holding (the forwarder: when free space falls
 * under the produce threshold).
 */
@FunctionalInterface
public interface RetentionHold {
  RetentionHold NONE = p -> Long.MAX_VALUE;

  /** The lowest offset of {@code p} to keep, or Long.MAX_VALUE to hold nothing. */
  long keepFrom(Partition p);

  /**
   * {@code hold} while {@code spaceOk} says so (free space above the produce threshold, D19), else
   * nothing held: a reader that is down must not fill the disk and stop producers.
   */
  static RetentionHold whileSpace(java.util.function.BooleanSupplier spaceOk, RetentionHold hold) {
    return p -> spaceOk.getAsBoolean() ? hold.keepFrom(p) : Long.MAX_VALUE;
  }
}
