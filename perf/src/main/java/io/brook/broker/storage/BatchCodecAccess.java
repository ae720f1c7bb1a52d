package io.brook.broker.storage;

import io.brook.broker.records.LogRecord;
import io.brook.protocol.batch.BatchReader;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Opens the package-private {@link BatchCodec} to {@code io.brook.perf.CodecBenchmark}: it lives in
 * the perf module but in the broker's package (one class path), so the broker needs no accessor.
 * It adds no logic: the scratch buffer, reader and CRC are reused across calls as
 * {@code ChronicleLog} reuses them.
 */
public final class BatchCodecAccess {
  private final ByteWriter out = new ByteWriter(64 * 1024);
  private final BatchReader in = new BatchReader();
  private final CRC32C crc = new CRC32C();

  /** Encodes the batch (with its CRC32C) as ChronicleLog.append does; returns the stored length. */
  public int encode(AppendBatch batch, long baseOffset) {
    return BatchCodec.encode(out, batch, baseOffset, Long.MIN_VALUE, 0, crc).storedLength();
  }

  /** The encoded bytes of the last {@link #encode}: {@code [0, length)}. */
  public byte[] encoded() {
    return out.array();
  }

  /**
   * Checks the stored batch's CRC32C and decodes its records from {@code fromOffset} into
   * {@code records}, as ChronicleLog.read does with checksums on; returns the payload bytes decoded.
   */
  public int decode(byte[] stored, int length, long fromOffset, List<LogRecord> records) {
    if (!BatchCodec.checksumMatches(stored, 0, length, crc)) {
      throw new StorageException("batch fails its checksum");
    }
    return BatchCodec.decode(stored, 0, length, fromOffset, Integer.MAX_VALUE, Integer.MAX_VALUE, records, in);
  }
}
