package io.brook.client.errors;

/** The group to create exists already. */
public class GroupExistsException extends BrookException {
  private static final long serialVersionUID = 1L;

  public GroupExistsException(String reason, String message) {
    super(reason, message);
  }

  public GroupExistsException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
