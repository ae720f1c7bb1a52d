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

  /** True when the records section of the batch in {@code b[from, from + length)} matches its CRC32C. */
  public static boolean checksumMatches(byte[] b, int from, int length, CRC32C crc) {
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
