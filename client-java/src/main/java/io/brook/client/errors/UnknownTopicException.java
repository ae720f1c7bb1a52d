package io.brook.client.errors;

/** The topic does not exist. */
public class UnknownTopicException extends BrookException {
  private static final long serialVersionUID = 1L;

  public UnknownTopicException(String reason, String message) {
    super(reason, message);
  }

  public UnknownTopicException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
