package io.brook.protocol.batch;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Kafka's record batch v2 (magic 2), the only batch format Kafka 4.x clients send and the body of a
 * stored batch of {@link BatchFormat#VERSION_2}. Big-endian, as on Kafka's wire. Offsets are from the
 * start of the Kafka batch.
 *
 * <pre>
 * off size field
 *   0  8   base offset
 *   8  4   batch length: the bytes after this field (the whole batch is batch length + 12)
 *  12  4   partition leader epoch
 *  16  1   magic (2)
 *  17  4   CRC-32C of everything from the attributes to the end
 *  21  2   attributes: bits 0-2 compression, 3 timestamp type (1 = log append time),
 *          4 transactional, 5 control
 *  23  4   last offset delta
 *  27  8   base timestamp
 *  35  8   max timestamp
 *  43  8   producer id (-1: none)
 *  51  2   producer epoch (-1: none)
 *  53  4   base sequence (-1: none)
 *  57  4   record count
 *  61  ... records, compressed as a whole when the attributes say so. Each record: length varint,
 *          attributes int8, timestamp delta varlong, offset delta varint, key length varint
 *          (-1 = null), key, value length varint (-1 = null), value, header count varint, per header
 *          key length varint, UTF-8 key, value length varint (-1 = null), value. Varints are zig-zag.
 * </pre>
 *
 * <p>The base offset and the partition leader epoch lie outside the CRC, so a broker assigns
 * offsets by patching the base offset alone.
 */
public final class KafkaBatch {
  public static final int BASE_OFFSET = 0;
  public static final int BATCH_LENGTH = 8;
  public static final int PARTITION_LEADER_EPOCH = 12;
  public static final int MAGIC = 16;
  public static final int CRC = 17;
  public static final int ATTRIBUTES = 21;
  public static final int LAST_OFFSET_DELTA = 23;
  public static final int BASE_TIMESTAMP = 27;
  public static final int MAX_TIMESTAMP = 35;
  public static final int PRODUCER_ID = 43;
  public static final int PRODUCER_EPOCH = 51;
  public static final int BASE_SEQUENCE = 53;
  public static final int RECORDS_COUNT = 57;
  public static final int HEADER_SIZE = 61;
  /** The bytes the batch length does not count: the base offset and the length itself. */
  public static final int LOG_OVERHEAD = 12;

  public static final byte MAGIC_V2 = 2;
  public static final int COMPRESSION_MASK = 0x07;
  public static final int TIMESTAMP_TYPE = 0x08;
  public static final int TRANSACTIONAL = 0x10;
  public static final int CONTROL = 0x20;

  public static final long NO_PRODUCER_ID = -1;
  public static final short NO_PRODUCER_EPOCH = -1;
  public static final int NO_SEQUENCE = -1;
  public static final long NO_TIMESTAMP = -1;

  private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);

  private KafkaBatch() {}

  public static long longAt(byte[] b, int at) {
    return (long) LONG.get(b, at);
  }

  public static int intAt(byte[] b, int at) {
    return (int) INT.get(b, at);
  }

  public static short shortAt(byte[] b, int at) {
    return (short) SHORT.get(b, at);
  }

  public static void putLong(byte[] b, int at, long v) {
    LONG.set(b, at, v);
  }

  public static void putInt(byte[] b, int at, int v) {
    INT.set(b, at, v);
  }

  public static void putShort(byte[] b, int at, short v) {
    SHORT.set(b, at, v);
  }

  public static long baseOffset(byte[] b, int from) {
    return longAt(b, from + BASE_OFFSET);
  }

  /** Sets the base offset: outside the CRC, so the batch stays valid. */
  public static void setBaseOffset(byte[] b, int from, long offset) {
    putLong(b, from + BASE_OFFSET, offset);
  }

  /** Sets the partition leader epoch: outside the CRC, so the batch stays valid. */
  public static void setPartitionLeaderEpoch(byte[] b, int from, int epoch) {
    putInt(b, from + PARTITION_LEADER_EPOCH, epoch);
  }

  public static int attributes(byte[] b, int from) {
    return shortAt(b, from + ATTRIBUTES);
  }

  /**
   * The batch's codec.
   *
   * @throws CorruptBatchException when its code names none
   */
  public static Compression compression(byte[] b, int from) {
    return Compression.ofCode(attributes(b, from) & COMPRESSION_MASK);
  }

  public static int recordCount(byte[] b, int from) {
    return intAt(b, from + RECORDS_COUNT);
  }

  public static int lastOffsetDelta(byte[] b, int from) {
    return intAt(b, from + LAST_OFFSET_DELTA);
  }

  /** The offset after the batch's last record. */
  public static long nextOffset(byte[] b, int from) {
    return baseOffset(b, from) + lastOffsetDelta(b, from) + 1;
  }

  public static long baseTimestamp(byte[] b, int from) {
    return longAt(b, from + BASE_TIMESTAMP);
  }

  public static long maxTimestamp(byte[] b, int from) {
    return longAt(b, from + MAX_TIMESTAMP);
  }

  public static long producerId(byte[] b, int from) {
    return longAt(b, from + PRODUCER_ID);
  }

  public static short producerEpoch(byte[] b, int from) {
    return shortAt(b, from + PRODUCER_EPOCH);
  }

  public static int baseSequence(byte[] b, int from) {
    return intAt(b, from + BASE_SEQUENCE);
  }

  /**
   * Checks that {@code b[from, from + length)} can hold one Kafka v2 batch: the header fits, the
   * magic is 2, the batch length covers exactly the rest, the count is not negative and the last
   * offset delta leaves room for that many increasing deltas. It reads no record and checks no CRC.
   *
   * @throws CorruptBatchException when it cannot
   */
  public static void checkHeader(byte[] b, int from, int length) {
    if (length < HEADER_SIZE) {
      throw new CorruptBatchException("corrupt Kafka batch: " + length + " bytes, less than its "
          + HEADER_SIZE + "-byte header");
    }
    if (b[from + MAGIC] != MAGIC_V2) {
      throw new CorruptBatchException("corrupt Kafka batch at offset " + baseOffset(b, from) + ": magic "
          + b[from + MAGIC] + ", only 2 is supported");
    }
    int batchLength = intAt(b, from + BATCH_LENGTH);
    if (batchLength != length - LOG_OVERHEAD) {
      throw new CorruptBatchException("corrupt Kafka batch at offset " + baseOffset(b, from) + ": batch length "
          + batchLength + " in " + length + " bytes (it must be the size less " + LOG_OVERHEAD + ")");
    }
    int count = recordCount(b, from);
    if (count < 0 || lastOffsetDelta(b, from) < count - 1) {
      throw new CorruptBatchException("corrupt Kafka batch at offset " + baseOffset(b, from) + ": record count "
          + recordCount(b, from) + ", last offset delta " + lastOffsetDelta(b, from));
    }
  }

  /** True when the CRC-32C of {@code b[from + ATTRIBUTES, from + length)} is the one the batch holds. */
  public static boolean crcMatches(byte[] b, int from, int length, CRC32C crc) {
    if (length < HEADER_SIZE) {
      return false;
    }
    return computeCrc(b, from, length, crc) == intAt(b, from + CRC);
  }

  /** Writes the CRC-32C of the batch, after a change of its attributes or max timestamp (log append time). */
  public static void recomputeCrc(byte[] b, int from, int length, CRC32C crc) {
    putInt(b, from + CRC, computeCrc(b, from, length, crc));
  }

  private static int computeCrc(byte[] b, int from, int length, CRC32C crc) {
    crc.reset();
    crc.update(b, from + ATTRIBUTES, length - ATTRIBUTES);
    return (int) crc.getValue();
  }
}
