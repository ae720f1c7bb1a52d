package io.brook.client.errors;

/** The member is no longer in the group: it must join again. */
public class UnknownMemberException extends BrookException {
  private static final long serialVersionUID = 1L;

  public UnknownMemberException(String reason, String message) {
    super(reason, message);
  }

  public UnknownMemberException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
