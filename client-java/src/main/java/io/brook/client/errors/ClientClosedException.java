package io.brook.client.errors;

/** The client was closed: it sends and receives nothing more. */
public class ClientClosedException extends BrookException {
  private static final long serialVersionUID = 1L;

  public ClientClosedException(String reason, String message) {
    super(reason, message);
  }

  public ClientClosedException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
