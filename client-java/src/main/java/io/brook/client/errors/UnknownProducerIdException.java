package io.brook.client.errors;

/** The broker no longer holds this producer's state (it expired). */
public class UnknownProducerIdException extends BrookException {
  private static final long serialVersionUID = 1L;

  public UnknownProducerIdException(String reason, String message) {
    super(reason, message);
  }

  public UnknownProducerIdException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
