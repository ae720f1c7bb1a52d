package io.brook.client.errors;

/** The group has members: resetting or deleting it needs an empty group. */
public class GroupNotEmptyException extends BrookException {
  private static final long serialVersionUID = 1L;

  public GroupNotEmptyException(String reason, String message) {
    super(reason, message);
  }

  public GroupNotEmptyException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
