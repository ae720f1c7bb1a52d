package io.brook.broker.storage.dump;

import io.brook.broker.storage.StorageException;

/** The path given to the dump is missing or holds no partition log: a usage error, not corruption. */
public final class NotAPartitionDirectoryException extends StorageException {
  public NotAPartitionDirectoryException(String message) {
    super(message);
  }
}
