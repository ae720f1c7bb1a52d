package io.brook.client.errors;

/** The topic to create exists already. */
public class TopicExistsException extends BrookException {
  private static final long serialVersionUID = 1L;

  public TopicExistsException(String reason, String message) {
    super(reason, message);
  }

  public TopicExistsException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
