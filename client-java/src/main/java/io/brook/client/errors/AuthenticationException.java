package io.brook.client.errors;

/** The broker did not accept the client's credentials (gRPC UNAUTHENTICATED). */
public class AuthenticationException extends BrookException {
  private static final long serialVersionUID = 1L;

  public AuthenticationException(String reason, String message) {
    super(reason, message);
  }

  public AuthenticationException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
