package io.brook.client.errors;

/** The request names something invalid; the message says what. */
public class InvalidRequestException extends BrookException {
  private static final long serialVersionUID = 1L;

  public InvalidRequestException(String reason, String message) {
    super(reason, message);
  }

  public InvalidRequestException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
