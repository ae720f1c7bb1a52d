package io.brook.client.errors;

/** A broker-wide limit is reached (max.topics, max.partitions, max.groups). */
public class LimitExceededException extends BrookException {
  private static final long serialVersionUID = 1L;

  public LimitExceededException(String reason, String message) {
    super(reason, message);
  }

  public LimitExceededException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
