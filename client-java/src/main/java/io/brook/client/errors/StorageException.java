package io.brook.client.errors;

/** The broker's storage failed to write or read; the message says why. */
public class StorageException extends RetriableException {
  private static final long serialVersionUID = 1L;

  public StorageException(String reason, String message) {
    super(reason, message);
  }

  public StorageException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
