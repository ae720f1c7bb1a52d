package io.brook.client.errors;

/** The topic has no such partition (yet: partitions can be added). */
public class UnknownPartitionException extends RetriableException {
  private static final long serialVersionUID = 1L;

  public UnknownPartitionException(String reason, String message) {
    super(reason, message);
  }

  public UnknownPartitionException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
