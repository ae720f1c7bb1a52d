package io.brook.broker.core;

import io.brook.broker.errors.BrokerError;

/**
 * A record found by time in one partition: its offset and timestamp; or none (both -1); or why not.
 *
 * @param error null when looked up (found or not); then a found record has offset >= 0
 */
public record TimedOffset(long offset, long timestampMs, BrokerError error, String errorMessage) {
  static final TimedOffset NONE = new TimedOffset(-1, -1, null, null);

  public boolean found() {
    return error == null && offset >= 0;
  }
}
