package io.brook.client.errors;

/** Ack mode: a newer consumer with the same client id took this member (and its leases) over. */
public class MemberReplacedException extends BrookException {
  private static final long serialVersionUID = 1L;

  public MemberReplacedException(String reason, String message) {
    super(reason, message);
  }

  public MemberReplacedException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
