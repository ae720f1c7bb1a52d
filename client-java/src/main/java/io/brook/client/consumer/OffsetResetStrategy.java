package io.brook.client.consumer;

/**
 * Where a partition starts when the group has no committed offset for it, or when its position
 * fell out of the partition's range (Kafka's {@code auto.offset.reset}).
 */
public enum OffsetResetStrategy {
  /** The oldest record the partition still holds. */
  EARLIEST,
  /** The end: only records produced from now on. */
  LATEST,
  /**
   * Nowhere: poll throws {@link io.brook.client.errors.NoOffsetForPartitionException} (no committed
   * offset) or {@link io.brook.client.errors.OffsetOutOfRangeException} (out of range) until the
   * application seeks.
   */
  NONE
}
