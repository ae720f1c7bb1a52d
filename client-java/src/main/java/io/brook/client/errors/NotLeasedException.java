package io.brook.client.errors;

/** Ack mode: the record is not leased to this member. */
public class NotLeasedException extends BrookException {
  private static final long serialVersionUID = 1L;

  public NotLeasedException(String reason, String message) {
    super(reason, message);
  }

  public NotLeasedException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
