package io.brook.client.errors;

/** Ack mode: the lease ran out; the record is, or will be, delivered again. */
public class LeaseExpiredException extends BrookException {
  private static final long serialVersionUID = 1L;

  public LeaseExpiredException(String reason, String message) {
    super(reason, message);
  }

  public LeaseExpiredException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
