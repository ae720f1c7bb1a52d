package io.brook.client.errors;

/** The client's identity may not do this (gRPC PERMISSION_DENIED). */
public class AuthorizationException extends BrookException {
  private static final long serialVersionUID = 1L;

  public AuthorizationException(String reason, String message) {
    super(reason, message);
  }

  public AuthorizationException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
