package io.brook.client.errors;

/** A record is larger than the topic's max.record.bytes, or a batch larger than the broker allows. */
public class RecordTooLargeException extends BrookException {
  private static final long serialVersionUID = 1L;

  public RecordTooLargeException(String reason, String message) {
    super(reason, message);
  }

  public RecordTooLargeException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
