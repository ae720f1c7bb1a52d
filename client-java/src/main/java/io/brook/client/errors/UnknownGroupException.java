package io.brook.client.errors;

/** The group does not exist. */
public class UnknownGroupException extends BrookException {
  private static final long serialVersionUID = 1L;

  public UnknownGroupException(String reason, String message) {
    super(reason, message);
  }

  public UnknownGroupException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
