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
 * @param checksumOk the batch matches its CRC (version 1: the records section's CRC32C; version 2:
 *     the Kafka batch's CRC-32C)
 * @param problem what is wrong with the batch's structure or its place in the log, or null
 * @param version the stored format version (1 or 2, BatchFormat), or what the unreadable header says
 * @param compression a version 2 batch's codec (none, gzip, snappy, lz4, zstd); "none" for version 1
 */
public record DumpedBatch(String segment, long baseOffset, int recordCount, long appendTimeMs, long firstTimestamp,
    long maxTimestamp, ProducerStamp producer, int sizeBytes, boolean checksumOk, String problem, int version,
    String compression) {

  public long lastOffset() {
    return baseOffset + recordCount - 1;
  }
}
