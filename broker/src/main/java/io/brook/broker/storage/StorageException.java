package io.brook.broker.storage;

/** The storage could not do what was asked (I/O failure, closed log, corrupt batch). */
public class StorageException extends RuntimeException {
  public StorageException(String message) {
    super(message);
  }

  public StorageException(String message, Throwable cause) {
    super(message, cause);
  }
}
