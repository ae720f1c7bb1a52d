package io.brook.client.errors;

/** The broker cannot be reached, or is starting or stopping (gRPC UNAVAILABLE). */
public class BrokerUnavailableException extends RetriableException {
  private static final long serialVersionUID = 1L;

  public BrokerUnavailableException(String reason, String message) {
    super(reason, message);
  }

  public BrokerUnavailableException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
