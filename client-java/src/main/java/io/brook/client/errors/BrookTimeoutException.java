package io.brook.client.errors;

/** A call or a record's delivery did not finish within its timeout. */
public class BrookTimeoutException extends RetriableException {
  private static final long serialVersionUID = 1L;

  public BrookTimeoutException(String reason, String message) {
    super(reason, message);
  }

  public BrookTimeoutException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
