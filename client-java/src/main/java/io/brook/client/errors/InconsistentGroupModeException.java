package io.brook.client.errors;

/** An offset-mode call on an ack-mode group, or the reverse. */
public class InconsistentGroupModeException extends BrookException {
  private static final long serialVersionUID = 1L;

  public InconsistentGroupModeException(String reason, String message) {
    super(reason, message);
  }

  public InconsistentGroupModeException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
