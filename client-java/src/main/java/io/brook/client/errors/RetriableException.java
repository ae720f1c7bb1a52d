package io.brook.client.errors;

/** An error that may go away by itself: the client retries these within its timeouts. */
public class RetriableException extends BrookException {
  private static final long serialVersionUID = 1L;

  public RetriableException(String reason, String message) {
    super(reason, message);
  }

  public RetriableException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }

  @Override
  public boolean isRetriable() {
    return true;
  }
}
