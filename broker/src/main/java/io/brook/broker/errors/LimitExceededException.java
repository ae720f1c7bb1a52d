package io.brook.broker.errors;

/** A broker-wide limit refused a request: the answer names the limit's config key and value. */
public final class LimitExceededException extends BrokerException {
  private final String key;
  private final long limit;

  public LimitExceededException(String key, long limit, String message) {
    super(BrokerError.LIMIT_EXCEEDED, message);
    this.key = key;
    this.limit = limit;
  }

  /** The config key, e.g. max.topics. */
  public String key() {
    return key;
  }

  public long limit() {
    return limit;
  }
}
