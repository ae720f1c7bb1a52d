package io.brook.broker.core;

import io.brook.broker.errors.BrokerError;
import java.util.List;

/**
 * What became of one batch (or of the part of it the broker put in one partition): where it was
 * written, or why not. A batch refused before it reached a partition has partition -1 when it named
 * none, and offsets of 0.
 *
 * @param recordIndexes for a part of a batch the broker partitioned: which of its records; else empty
 * @param duplicate an idempotent producer's retry, answered with the first write's offsets
 * @param error null when written
 */
public record BatchOutcome(int batchIndex, String topic, int partition, long baseOffset, int recordCount,
    long appendTimeMs, long logStartOffset, boolean logAppendTime, boolean duplicate, List<Integer> recordIndexes,
    BrokerError error, String errorMessage) {

  static BatchOutcome refused(int batchIndex, String topic, int partition, List<Integer> recordIndexes,
      BrokerError error, String message) {
    return new BatchOutcome(batchIndex, topic, partition, 0, 0, 0, 0, false, false, recordIndexes, error, message);
  }

  /** This written batch's outcome once its partition's force failed. */
  BatchOutcome notForced(BrokerError why, String message) {
    return new BatchOutcome(batchIndex, topic, partition, baseOffset, recordCount, appendTimeMs, logStartOffset,
        logAppendTime, duplicate, recordIndexes, why, "written but not forced to the device (SYNCED): " + message);
  }
}
