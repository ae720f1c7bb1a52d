package io.brook.protocol.batch;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.zip.CRC32C;

/**
 * Builds one Kafka record batch v2 ({@link KafkaBatch}) into an array it reuses batch after batch:
 * {@link #begin}, then per record {@link #record} and its {@link #header}s, then {@link #finish},
 * which compresses the records if asked, fills the header (last offset delta, base and max
 * timestamps, count) and computes the CRC-32C. Room for a prefix can be left before the batch, so
 * that the broker writes a stored version 2 batch ({@link BatchFormat#writeV2Prefix}) with no copy.
 *
 * <p>An uncompressed batch allocates nothing once the array has grown to its size; a compressed one
 * allocates its codec's stream, as Kafka's producer does. Not thread-safe.
 */
public final class KafkaBatchWriter {
  private static final int MAX_VARINT = 5;

  private byte[] buf = new byte[1024];
  private int prefix;
  private int pos;
  private long baseOffset;
  private Compression compression = Compression.NONE;
  private int partitionLeaderEpoch;
  private long producerId;
  private short producerEpoch;
  private int baseSequence;
  private long logAppendTime;
  private long baseTimestamp;
  private long maxTimestamp;
  private int count;
  /** Headers the current record still expects, and where its reserved length field is. */
  private int headersDue;
  private int recordStart;
  private boolean finished = true;
  private final CRC32C crc = new CRC32C();
  private final Compressed compressed = new Compressed();

  /**
   * Starts a batch, forgetting the last one. The batch begins at {@code array()[prefixBytes]}; the
   * bytes before it are the caller's. No producer (ids -1), create-time timestamps, partition leader
   * epoch -1 (what a producer sends) until set.
   */
  public KafkaBatchWriter begin(int prefixBytes, long baseOffset, Compression compression) {
    if (prefixBytes < 0) {
      throw new IllegalArgumentException("prefix of " + prefixBytes + " bytes");
    }
    this.prefix = prefixBytes;
    this.baseOffset = baseOffset;
    this.compression = compression;
    partitionLeaderEpoch = -1;
    producerId = KafkaBatch.NO_PRODUCER_ID;
    producerEpoch = KafkaBatch.NO_PRODUCER_EPOCH;
    baseSequence = KafkaBatch.NO_SEQUENCE;
    logAppendTime = KafkaBatch.NO_TIMESTAMP;
    baseTimestamp = KafkaBatch.NO_TIMESTAMP;
    maxTimestamp = KafkaBatch.NO_TIMESTAMP;
    count = 0;
    headersDue = 0;
    finished = false;
    pos = prefixBytes + KafkaBatch.HEADER_SIZE;
    ensure(pos);
    return this;
  }

  /** An idempotent producer's id, epoch and the sequence of the batch's first record. */
  public KafkaBatchWriter producer(long id, short epoch, int baseSequence) {
    this.producerId = id;
    this.producerEpoch = epoch;
    this.baseSequence = baseSequence;
    return this;
  }

  public KafkaBatchWriter partitionLeaderEpoch(int epoch) {
    this.partitionLeaderEpoch = epoch;
    return this;
  }

  /**
   * Marks the batch's timestamps as the log append time: the timestamp-type bit, and this time as the
   * max timestamp, as Kafka's broker writes it; the records keep the timestamps they were given.
   */
  public KafkaBatchWriter logAppendTime(long appendTime) {
    this.logAppendTime = appendTime;
    return this;
  }

  /** A record with no headers; {@code key} may be null (no key), {@code value} too (Kafka's null). */
  public void record(long timestamp, byte[] key, byte[] value) {
    record(timestamp, key, 0, key == null ? -1 : key.length, value, 0, value == null ? -1 : value.length, 0);
  }

  /**
   * Adds a record; a length of -1 is a null key or value. When {@code headerCount} is above 0, that
   * many {@link #header} calls must follow before the next record or {@link #finish}.
   */
  public void record(long timestamp, byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset,
      int valueLength, int headerCount) {
    if (finished) {
      throw new IllegalStateException("record before begin");
    }
    checkHeadersDone();
    if (keyLength < -1 || valueLength < -1 || headerCount < 0) {
      throw new IllegalArgumentException("key length " + keyLength + ", value length " + valueLength
          + ", header count " + headerCount);
    }
    if (count == 0) {
      baseTimestamp = timestamp;
      maxTimestamp = timestamp;
    } else if (timestamp > maxTimestamp) {
      maxTimestamp = timestamp;
    }
    long timestampDelta = timestamp - baseTimestamp;
    int offsetDelta = count;
    int fields = 1 + longSize(zigZag(timestampDelta)) + intSize(zigZag(offsetDelta))
        + intSize(zigZag(keyLength)) + Math.max(0, keyLength)
        + intSize(zigZag(valueLength)) + Math.max(0, valueLength) + intSize(zigZag(headerCount));
    if (headerCount == 0) {
      ensure(pos + MAX_VARINT + fields);
      writeVarint(zigZag(fields));
    } else {
      // Headers follow in later calls: the length goes in when they are done (closeRecord).
      ensure(pos + MAX_VARINT + fields);
      recordStart = pos;
      pos += MAX_VARINT;
    }
    buf[pos++] = 0; // record attributes: none defined
    writeVarlong(zigZag(timestampDelta));
    writeVarint(zigZag(offsetDelta));
    writeBytes(key, keyOffset, keyLength);
    writeBytes(value, valueOffset, valueLength);
    writeVarint(zigZag(headerCount));
    headersDue = headerCount;
    count++;
  }

  /** One header of the record just added; a {@code valueLength} of -1 is a null value. */
  public void header(byte[] name, int nameOffset, int nameLength, byte[] value, int valueOffset, int valueLength) {
    if (headersDue <= 0) {
      throw new IllegalStateException("more headers than the record announced");
    }
    if (nameLength < 0 || valueLength < -1) {
      throw new IllegalArgumentException("header name length " + nameLength + " (never null), value length "
          + valueLength);
    }
    ensure(pos + 2 * MAX_VARINT + nameLength + Math.max(0, valueLength));
    writeBytes(name, nameOffset, nameLength);
    writeBytes(value, valueOffset, valueLength);
    if (--headersDue == 0) {
      closeRecord();
    }
  }

  /** Writes the length of a record with headers into the room left for it, moving the body back over what it did not need. */
  private void closeRecord() {
    int bodyStart = recordStart + MAX_VARINT;
    int bodyLength = pos - bodyStart;
    int lengthSize = intSize(zigZag(bodyLength));
    int at = pos;
    pos = recordStart;
    writeVarint(zigZag(bodyLength));
    System.arraycopy(buf, bodyStart, buf, pos, bodyLength);
    pos = at - (MAX_VARINT - lengthSize);
  }

  /** Records added since {@link #begin}. */
  public int recordCount() {
    return count;
  }

  /** The bytes written so far, prefix and header included, before compression: a batch's size estimate. */
  public int uncompressedSize() {
    return pos;
  }

  /**
   * Completes the batch and returns its end: the prefix and the batch are {@code array()[0, end)},
   * the batch alone {@code [prefixBytes, end)}. Write the prefix after this: the array may have been
   * replaced by a larger one while records were added.
   */
  public int finish() {
    if (finished) {
      throw new IllegalStateException("finish before begin");
    }
    checkHeadersDone();
    int header = prefix;
    int recordsFrom = header + KafkaBatch.HEADER_SIZE;
    if (compression != Compression.NONE) {
      compressed.reset();
      try (OutputStream out = compression.compress(compressed)) {
        out.write(buf, recordsFrom, pos - recordsFrom);
      } catch (IOException e) {
        throw new UncheckedIOException(e); // never: the stream writes to memory
      }
      ensure(recordsFrom + compressed.size());
      System.arraycopy(compressed.array(), 0, buf, recordsFrom, compressed.size());
      pos = recordsFrom + compressed.size();
    }
    int attributes = compression.code();
    long maxTs = maxTimestamp;
    if (logAppendTime != KafkaBatch.NO_TIMESTAMP) {
      attributes |= KafkaBatch.TIMESTAMP_TYPE;
      maxTs = logAppendTime;
    }
    KafkaBatch.putLong(buf, header + KafkaBatch.BASE_OFFSET, baseOffset);
    KafkaBatch.putInt(buf, header + KafkaBatch.BATCH_LENGTH, pos - header - KafkaBatch.LOG_OVERHEAD);
    KafkaBatch.putInt(buf, header + KafkaBatch.PARTITION_LEADER_EPOCH, partitionLeaderEpoch);
    buf[header + KafkaBatch.MAGIC] = KafkaBatch.MAGIC_V2;
    KafkaBatch.putShort(buf, header + KafkaBatch.ATTRIBUTES, (short) attributes);
    KafkaBatch.putInt(buf, header + KafkaBatch.LAST_OFFSET_DELTA, count - 1);
    KafkaBatch.putLong(buf, header + KafkaBatch.BASE_TIMESTAMP, baseTimestamp);
    KafkaBatch.putLong(buf, header + KafkaBatch.MAX_TIMESTAMP, maxTs);
    KafkaBatch.putLong(buf, header + KafkaBatch.PRODUCER_ID, producerId);
    KafkaBatch.putShort(buf, header + KafkaBatch.PRODUCER_EPOCH, producerEpoch);
    KafkaBatch.putInt(buf, header + KafkaBatch.BASE_SEQUENCE, baseSequence);
    KafkaBatch.putInt(buf, header + KafkaBatch.RECORDS_COUNT, count);
    KafkaBatch.recomputeCrc(buf, header, pos - header, crc);
    finished = true;
    return pos;
  }

  /** The array the batch is built in; valid until the next {@link #begin}. */
  public byte[] array() {
    return buf;
  }

  private void checkHeadersDone() {
    if (headersDue > 0) {
      throw new IllegalStateException(headersDue + " headers of the last record are missing");
    }
  }

  private void writeBytes(byte[] b, int offset, int length) {
    writeVarint(zigZag(length));
    if (length > 0) {
      System.arraycopy(b, offset, buf, pos, length);
      pos += length;
    }
  }

  private void writeVarint(int v) {
    while ((v & ~0x7f) != 0) {
      buf[pos++] = (byte) ((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    buf[pos++] = (byte) v;
  }

  private void writeVarlong(long v) {
    while ((v & ~0x7fL) != 0) {
      buf[pos++] = (byte) ((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    buf[pos++] = (byte) v;
  }

  private static int zigZag(int v) {
    return (v << 1) ^ (v >> 31);
  }

  private static long zigZag(long v) {
    return (v << 1) ^ (v >> 63);
  }

  private static int intSize(int v) {
    return (38 - Integer.numberOfLeadingZeros(v | 1)) / 7;
  }

  private static int longSize(long v) {
    return (70 - Long.numberOfLeadingZeros(v | 1)) / 7;
  }

  private void ensure(int capacity) {
    if (buf.length < capacity) {
      byte[] grown = new byte[Math.max(capacity, (int) Math.min(Integer.MAX_VALUE - 8, 2L * buf.length))];
      System.arraycopy(buf, 0, grown, 0, Math.min(pos, buf.length));
      buf = grown;
    }
  }

  /** A byte stream whose array is read in place. */
  private static final class Compressed extends ByteArrayOutputStream {
    Compressed() {
      super(1024);
    }

    byte[] array() {
      return buf;
    }
  }
}
