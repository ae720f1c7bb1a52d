package io.brook.broker.core;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;

/** How much an ack-mode member may hold unsettled: records and payload bytes. */
public record FlowLimits(long maxRecords, long maxBytes) {
  public static final long DEFAULT_MAX_RECORDS = 1000;
  public static final long DEFAULT_MAX_BYTES = 100L << 20;

  /** The limits a member asked for; 0 for the default; INVALID_REQUEST for a negative limit. */
  public static FlowLimits of(long maxRecords, long maxBytes) {
    if (maxRecords < 0 || maxBytes < 0) {
      throw new BrokerException(BrokerError.INVALID_REQUEST, "flow control limits must be >= 0 (0: the default)");
    }
    return new FlowLimits(maxRecords == 0 ? DEFAULT_MAX_RECORDS : maxRecords,
        maxBytes == 0 ? DEFAULT_MAX_BYTES : maxBytes);
  }
}
