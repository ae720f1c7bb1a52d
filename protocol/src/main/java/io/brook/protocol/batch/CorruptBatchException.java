package io.brook.protocol.batch;

/** A batch that does not follow {@link BatchFormat}: truncated, a length out of bounds, an unknown version. */
public final class CorruptBatchException extends RuntimeException {
  public CorruptBatchException(String message) {
    super(message);
  }
}
