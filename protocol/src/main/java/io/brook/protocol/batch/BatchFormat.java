package io.brook.protocol.batch;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The Brook batch format, version 1: how the broker stores a batch, and how a raw fetch
 * ({@code FetchRequest.raw_batches}) carries it to a client, byte for byte. One fixed
 * little-endian header, then the records.
 *
 * <pre>
 * off size field
 *   0  1   version (1)
 *   1  1   attributes (bit 0: timestamps are the log append time; bit 1: producer fields follow)
 *   2  4   record count
 *   6  8   base offset
 *  14  8   base timestamp (the first record's; record timestamps are deltas from it)
 *  22  8   running max timestamp: the largest timestamp in this partition up to and including this
 *          batch. Monotonic, so offset-for-timestamp is a binary search over batches (the time index)
 *  30  8   append time (broker clock)
 *  38  8   log position: bytes of all batches before this one in the partition (sizes without files)
 *  46  4   CRC32C of the records section
 *  50  4   length of the records section
 *  54 14   only with attribute bit 1 (an idempotent producer's batch): producer id (8), epoch (2),
 *          base sequence (4); plain batches do not pay for them
 *  54|68   records: varint length, then zig-zag timestamp delta, varint key length + 1 (0 = no key),
 *          key, varint value length, value, varint header count, per header varint name length,
 *          UTF-8 name, varint value length, value.
 * </pre>
 *
 * <p>Version 2 (D37, D45): a small little-endian prefix of Brook's own fields, then one Kafka record
 * batch v2 exactly as Kafka stores it ({@link KafkaBatch}: big-endian, records compressed as the
 * producer sent them):
 *
 * <pre>
 * off size field
 *   0  1   version (2)
 *   1  1   attributes (bit 0: timestamps are the log append time, as in version 1; other bits 0)
 *   2  8   running max timestamp (the time index, as in version 1)
 *  10  8   append time (broker clock)
 *  18  8   log position
 *  26 ...  Kafka record batch v2: base offset = the offset the log assigned, partition leader
 *          epoch 0; its batch length + 12 is the rest of the stored batch
 * </pre>
 *
 * <p>The first byte tells the versions apart; {@link BatchReader#wrap} reads both.
 *
 * <p>It lives in the protocol module because it is part of the contract: the broker writes it, and
 * every client that asks for raw batches reads it with {@link BatchReader}.
 */
public final class BatchFormat {
  public static final byte VERSION = 1;
  public static final int ATTR_LOG_APPEND_TIME = 1;
  public static final int ATTR_PRODUCER = 2;

  public static final int ATTRIBUTES = 1;
  public static final int RECORD_COUNT = 2;
  public static final int BASE_OFFSET = 6;
  public static final int BASE_TIMESTAMP = 14;
  public static final int RUNNING_MAX_TIMESTAMP = 22;
  public static final int APPEND_TIME = 30;
  public static final int LOG_POSITION = 38;
  public static final int CRC = 46;
  public static final int RECORDS_LENGTH = 50;
  public static final int HEADER_SIZE = 54;
  public static final int PRODUCER_ID = 54;
  public static final int PRODUCER_EPOCH = 62;
  public static final int BASE_SEQUENCE = 64;
  public static final int HEADER_SIZE_WITH_PRODUCER = 68;

  public static final byte VERSION_2 = 2;
  public static final int V2_ATTRIBUTES = 1;
  public static final int V2_RUNNING_MAX_TIMESTAMP = 2;
  public static final int V2_APPEND_TIME = 10;
  public static final int V2_LOG_POSITION = 18;
  /** Where the Kafka batch starts in a version 2 batch. */
  public static final int V2_PREFIX_SIZE = 26;
  /** The prefix and the Kafka batch's header: what the accessors below read of a version 2 batch. */
  public static final int V2_HEADER_SIZE = V2_PREFIX_SIZE + KafkaBatch.HEADER_SIZE;

  private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);

  private BatchFormat() {}

  public static long longAt(byte[] b, int at) {
    return (long) LONG.get(b, at);
  }

  public static int intAt(byte[] b, int at) {
    return (int) INT.get(b, at);
  }

  public static short shortAt(byte[] b, int at) {
    return (short) SHORT.get(b, at);
  }

  /** The stored batch's format version: its first byte. */
  public static int version(byte[] b, int from) {
    return b[from];
  }

  // Fields both versions have, read from whichever the first byte names. The caller holds at least
  // the header: HEADER_SIZE bytes of version 1, V2_HEADER_SIZE of version 2.

  public static int recordCount(byte[] b, int from) {
    return b[from] == VERSION_2 ? KafkaBatch.recordCount(b, from + V2_PREFIX_SIZE) : intAt(b, from + RECORD_COUNT);
  }

  public static long baseOffset(byte[] b, int from) {
    return b[from] == VERSION_2 ? KafkaBatch.baseOffset(b, from + V2_PREFIX_SIZE) : longAt(b, from + BASE_OFFSET);
  }

  /** The offset after the batch's last record. */
  public static long nextOffset(byte[] b, int from) {
    return b[from] == VERSION_2 ? KafkaBatch.nextOffset(b, from + V2_PREFIX_SIZE)
        : longAt(b, from + BASE_OFFSET) + intAt(b, from + RECORD_COUNT);
  }

  public static long runningMaxTimestamp(byte[] b, int from) {
    return longAt(b, from + (b[from] == VERSION_2 ? V2_RUNNING_MAX_TIMESTAMP : RUNNING_MAX_TIMESTAMP));
  }

  public static long appendTime(byte[] b, int from) {
    return longAt(b, from + (b[from] == VERSION_2 ? V2_APPEND_TIME : APPEND_TIME));
  }

  public static long logPosition(byte[] b, int from) {
    return longAt(b, from + (b[from] == VERSION_2 ? V2_LOG_POSITION : LOG_POSITION));
  }

  /** Writes the prefix of a version 2 batch at {@code b[from]}; the Kafka batch follows it. */
  public static void writeV2Prefix(byte[] b, int from, int attributes, long runningMaxTimestamp, long appendTime,
      long logPosition) {
    b[from] = VERSION_2;
    b[from + V2_ATTRIBUTES] = (byte) attributes;
    LONG.set(b, from + V2_RUNNING_MAX_TIMESTAMP, runningMaxTimestamp);
    LONG.set(b, from + V2_APPEND_TIME, appendTime);
    LONG.set(b, from + V2_LOG_POSITION, logPosition);
  }

  /**
   * Checks that {@code b[from, from + length)} can hold a version 2 batch: the prefix, then a Kafka
   * batch whose length is the rest ({@link KafkaBatch#checkHeader}).
   *
   * @throws CorruptBatchException when it cannot
   */
  public static void checkV2Header(byte[] b, int from, int length) {
    if (length < V2_PREFIX_SIZE || b[from] != VERSION_2) {
      throw new CorruptBatchException("corrupt batch: length " + length + ", version " + (length > 0 ? b[from] : -1));
    }
    KafkaBatch.checkHeader(b, from + V2_PREFIX_SIZE, length - V2_PREFIX_SIZE);
  }

  /** Where the records start: after the fixed header and, for producer batches, the producer fields. */
  public static int headerSize(byte[] b, int from) {
    return (b[from + ATTRIBUTES] & ATTR_PRODUCER) != 0 ? HEADER_SIZE_WITH_PRODUCER : HEADER_SIZE;
  }

  /**
   * Checks that {@code b[from, from + length)} can hold a batch: a known version and a records
   * section that ends exactly at the end.
   *
   * @throws CorruptBatchException when it cannot
   */
  public static void checkHeader(byte[] b, int from, int length) {
    if (length < HEADER_SIZE || b[from] != VERSION) {
      throw new CorruptBatchException("corrupt batch: length " + length + ", version " + (length > 0 ? b[from] : -1));
    }
    int headerSize = headerSize(b, from);
    int recordsLength = intAt(b, from + RECORDS_LENGTH);
    if (length < headerSize || recordsLength != length - headerSize) {
      throw new CorruptBatchException("corrupt batch: " + length + " bytes hold a " + headerSize
          + "-byte header and " + recordsLength + " bytes of records");
    }
  }

  /**
   * True when the batch in {@code b[from, from + length)} matches its CRC32C: in version 1 the
   * records section's, in version 2 the Kafka batch's (attributes to the end).
   */
  public static boolean checksumMatches(byte[] b, int from, int length, CRC32C crc) {
    if (length > 0 && b[from] == VERSION_2) {
      return length >= V2_PREFIX_SIZE
          && KafkaBatch.crcMatches(b, from + V2_PREFIX_SIZE, length - V2_PREFIX_SIZE, crc);
    }
    if (length < HEADER_SIZE || b[from] != VERSION || length < headerSize(b, from)) {
      return false; // too short to hold the fields the check reads, or no version it knows
    }
    int headerSize = headerSize(b, from);
    int recordsLength = intAt(b, from + RECORDS_LENGTH);
    if (recordsLength != length - headerSize) {
      return false;
    }
    crc.reset();
    crc.update(b, from + headerSize, recordsLength);
    return (int) crc.getValue() == intAt(b, from + CRC);
  }
}
