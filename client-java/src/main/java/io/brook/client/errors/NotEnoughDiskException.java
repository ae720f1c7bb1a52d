package io.brook.client.errors;

/** The broker's free disk is under its threshold; produces are refused until space is freed. */
public class NotEnoughDiskException extends RetriableException {
  private static final long serialVersionUID = 1L;

  public NotEnoughDiskException(String reason, String message) {
    super(reason, message);
  }

  public NotEnoughDiskException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
