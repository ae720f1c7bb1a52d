package io.brook.client.errors;

/** The producer's buffer.memory stayed full for max.block.ms: records are produced faster than the broker takes them. */
public class BufferExhaustedException extends BrookException {
  private static final long serialVersionUID = 1L;

  public BufferExhaustedException(String reason, String message) {
    super(reason, message);
  }

  public BufferExhaustedException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
