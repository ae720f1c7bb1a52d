package io.brook.client.errors;

/** Ack mode: the record was settled already (acked or dead-lettered). */
public class AlreadySettledException extends BrookException {
  private static final long serialVersionUID = 1L;

  public AlreadySettledException(String reason, String message) {
    super(reason, message);
  }

  public AlreadySettledException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
