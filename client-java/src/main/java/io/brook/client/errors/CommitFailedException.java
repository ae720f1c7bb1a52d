package io.brook.client.errors;

/** An offset commit was not stored; the message says why. */
public class CommitFailedException extends BrookException {
  private static final long serialVersionUID = 1L;

  public CommitFailedException(String reason, String message) {
    super(reason, message);
  }

  public CommitFailedException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
