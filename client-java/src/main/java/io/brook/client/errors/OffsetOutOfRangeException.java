package io.brook.client.errors;

/** The offset lies outside the partition's range; the message names the valid range. */
public class OffsetOutOfRangeException extends BrookException {
  private static final long serialVersionUID = 1L;

  public OffsetOutOfRangeException(String reason, String message) {
    super(reason, message);
  }

  public OffsetOutOfRangeException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
