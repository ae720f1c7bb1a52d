package io.brook.broker.core;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.records.LogRecord;
import java.util.List;

/**
 * What a read of one partition returned: records or stored batches, the offset to read next and the
 * partition's bounds, or the error that stopped it (with the bounds known before it, else 0).
 *
 * @param batches stored batches, each a fresh array the caller owns (raw reads), else empty
 * @param error null when the read went well
 */
public record PartitionRead(String topic, int partition, List<LogRecord> records, List<byte[]> batches,
    long nextOffset, long logStartOffset, long endOffset, BrokerError error, String errorMessage) {

  boolean hasRecordsOrError() {
    return !records.isEmpty() || !batches.isEmpty() || error != null;
  }
}
