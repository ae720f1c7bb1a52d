package io.brook.broker.storage;

/** A read asked for an offset outside [log-start offset, end offset]. */
public final class OffsetOutOfRangeException extends RuntimeException {
  private final long offset;
  private final long startOffset;
  private final long endOffset;

  public OffsetOutOfRangeException(long offset, long startOffset, long endOffset) {
    super("offset " + offset + " is out of range: valid offsets are " + startOffset + " to " + endOffset
        + " (the end offset " + endOffset + " waits for the next record)");
    this.offset = offset;
    this.startOffset = startOffset;
    this.endOffset = endOffset;
  }

  public long offset() {
    return offset;
  }

  public long startOffset() {
    return startOffset;
  }

  public long endOffset() {
    return endOffset;
  }
}
