package io.brook.client.errors;

/** The broker refused a record as malformed (an empty batch, a bad header or timestamp). */
public class InvalidRecordException extends BrookException {
  private static final long serialVersionUID = 1L;

  public InvalidRecordException(String reason, String message) {
    super(reason, message);
  }

  public InvalidRecordException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
