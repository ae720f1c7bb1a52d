package io.brook.client.errors;

/** The broker saw an idempotent batch out of sequence: records between may be missing. */
public class OutOfOrderSequenceException extends BrookException {
  private static final long serialVersionUID = 1L;

  public OutOfOrderSequenceException(String reason, String message) {
    super(reason, message);
  }

  public OutOfOrderSequenceException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
