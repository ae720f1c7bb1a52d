package io.brook.broker.storage;

/** Where a batch landed: its first offset (the rest follow contiguously) and the append time. */
public record AppendResult(long baseOffset, int recordCount, long appendTimeMs, long logStartOffset) {
  public long lastOffset() {
    return baseOffset + recordCount - 1;
  }
}
