package io.brook.broker.storage.dump;

import io.brook.broker.records.ProducerStamp;

/**
 * One stored batch as the offline dump reads it.
 *
 * @param segment the segment (Chronicle cycle file) holding it
 * @param baseOffset -1 when the header itself is unreadable
 * @param firstTimestamp the first record's timestamp (ms)
 * @param maxTimestamp the largest record timestamp in this batch (ms)
 * @param sizeBytes the stored size: header and records
 * @param checksumOk the records section matches the CRC32C in the header
 * @param problem what is wrong with the batch's structure or its place in the log, or null
 */
public record DumpedBatch(String segment, long baseOffset, int recordCount, long appendTimeMs, long firstTimestamp,
    long maxTimestamp, ProducerStamp producer, int sizeBytes, boolean checksumOk, String problem) {

  public long lastOffset() {
    return baseOffset + recordCount - 1;
  }
}
