package io.brook.broker.errors;

/** An expected failure with a message for people: logged without a stack trace, answered with a status. */
public class BrokerException extends RuntimeException {
  private final BrokerError error;

  public BrokerException(BrokerError error, String message) {
    super(message, null, false, false);
    this.error = error;
  }

  public BrokerError error() {
    return error;
  }
}
