package io.brook.client.admin;

/**
 * One partition of a topic: its log-start and end offsets, the bytes of records it holds, its
 * segments (roll cycle and count), the device forces made for SYNCED produces since the broker
 * started, and how many idempotent producers it keeps state for.
 */
public record PartitionInfo(int partition, long logStartOffset, long endOffset, long sizeBytes, String segmentRoll,
    int segmentCount, long forceCount, int producerCount) {
  /** Records held: end offset minus log-start offset. */
  public long records() {
    return endOffset - logStartOffset;
  }
}
