package io.brook.protocol.batch;

/**
 * A batch that does not follow {@link BatchFormat}: truncated, a length out of bounds, an unknown
 * version; or one whose records decompress to more than the reader's limit ({@link #overLimit()}).
 */
public final class CorruptBatchException extends RuntimeException {
  private final boolean overLimit;

  public CorruptBatchException(String message) {
    this(message, false);
  }

  private CorruptBatchException(String message, boolean overLimit) {
    super(message);
    this.overLimit = overLimit;
  }

  /** A batch that may be sound but is too large to read back: its records decompress past the limit. */
  static CorruptBatchException overLimit(String message) {
    return new CorruptBatchException(message, true);
  }

  /** True when the records decompress to more than the reader's limit, rather than being malformed. */
  public boolean overLimit() {
    return overLimit;
  }
}
