package io.brook.client.errors;

/**
 * Every error the client raises. {@link #reason()} is the broker's error code without its
 * {@code ERROR_CODE_} prefix (for example {@code UNKNOWN_TOPIC}), or the gRPC status code when the
 * broker named none, or a client-side reason ({@code BUFFER_EXHAUSTED}, {@code TIMEOUT}, ...).
 * {@link #isRetriable()} says whether the same call may succeed later unchanged.
 */
public class BrookException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final String reason;

  public BrookException(String reason, String message) {
    this(reason, message, null);
  }

  public BrookException(String reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = reason;
  }

  public String reason() {
    return reason;
  }

  public boolean isRetriable() {
    return false;
  }
}
