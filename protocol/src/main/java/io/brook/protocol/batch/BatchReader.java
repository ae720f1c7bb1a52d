package io.brook.protocol.batch;

import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Walks the records of one batch without allocating: a stored batch of {@link BatchFormat} version
 * 1 or 2, a bare Kafka record batch v2, or a bare version 1 records section. After {@link #next()}
 * the current record's fields are positions in {@link #array()}, and the caller copies what it
 * keeps. One reader is reused batch after batch; it is not thread-safe.
 *
 * <p>Every length is checked against the batch's bounds, so a corrupt batch fails with a
 * {@link CorruptBatchException} and never reads past it. Compressed Kafka records are decompressed
 * once, when the batch is wrapped, into an array the reader reuses, never past
 * {@link #maxDecompressedBytes(int)}.
 *
 * <p>Nulls (D45): a Kafka record may have a null value and a header a null value; Brook's never do.
 * The accessors give Brook's view, a null value as an empty one ({@link #valueLength()} 0,
 * {@link #copyValue()} empty), and {@link #hasValue()} / {@link #hasHeaderValue(int)} tell null
 * from empty for a door that passes nulls on. A null key is "no key" in both ({@link #hasKey()}).
 */
public final class BatchReader {
  private final DecompressionBuffer decompressed = new DecompressionBuffer();
  private byte[] buf;
  private int pos;
  private int limit;
  private long baseOffset;
  private long baseTimestamp;
  /** The timestamp every record gets when {@link #logAppendTime} is set. */
  private long appendTime;
  private boolean logAppendTime;
  private int count;
  private int index;
  /** Kafka records (varints zig-zag, offset deltas, nulls) rather than version 1 records. */
  private boolean kafka;
  private int lastOffsetDelta;
  private int offsetDelta;
  private Compression compression = Compression.NONE;
  private int kafkaAttributes;

  private long offset;
  private long timestamp;
  private int keyOffset;
  private int keyLength;
  private int valueOffset;
  private int valueLength;
  private boolean valueNull;
  private int headerCount;
  /** Per header: name offset, name length, value offset, value length (-1: null). */
  private int[] headers = new int[16];

  /**
   * Bounds what the records of one compressed batch may decompress to (default 16 MiB); a batch
   * that needs more fails with a {@link CorruptBatchException}. The reader keeps an array as large
   * as the largest batch it decompressed.
   */
  public BatchReader maxDecompressedBytes(int maxBytes) {
    decompressed.maxBytes(maxBytes);
    return this;
  }

  public int maxDecompressedBytes() {
    return decompressed.maxBytes();
  }

  /**
   * Starts reading the stored batch held in {@code b[from, from + length)}, of version 1 or 2 (its
   * first byte says which). A compressed version 2 batch is decompressed here.
   */
  public BatchReader wrap(byte[] b, int from, int length) {
    checkBounds(b, from, length);
    if (length > 0 && b[from] == BatchFormat.VERSION_2) {
      BatchFormat.checkV2Header(b, from, length);
      startKafka(b, from + BatchFormat.V2_PREFIX_SIZE, length - BatchFormat.V2_PREFIX_SIZE);
      if (!logAppendTime && (b[from + BatchFormat.V2_ATTRIBUTES] & BatchFormat.ATTR_LOG_APPEND_TIME) != 0) {
        logAppendTime = true;
        appendTime = BatchFormat.longAt(b, from + BatchFormat.V2_APPEND_TIME);
      }
      return this;
    }
    BatchFormat.checkHeader(b, from, length);
    int headerSize = BatchFormat.headerSize(b, from);
    start(b, from + headerSize, length - headerSize, BatchFormat.intAt(b, from + BatchFormat.RECORD_COUNT),
        BatchFormat.longAt(b, from + BatchFormat.BASE_OFFSET), BatchFormat.longAt(b, from + BatchFormat.BASE_TIMESTAMP));
    appendTime = BatchFormat.longAt(b, from + BatchFormat.APPEND_TIME);
    logAppendTime = (b[from + BatchFormat.ATTRIBUTES] & BatchFormat.ATTR_LOG_APPEND_TIME) != 0;
    return this;
  }

  /**
   * As {@link #wrap}, after checking the batch's checksum: in version 1 the records section's
   * CRC32C, in version 2 the Kafka batch's CRC-32C. Checked before anything is decompressed, so a
   * damaged batch is refused for what it is, not for what its damage decompresses to.
   *
   * @throws CorruptBatchException when the batch is malformed or its checksum does not match
   */
  public BatchReader wrapVerified(byte[] b, int from, int length, CRC32C crc) {
    checkBounds(b, from, length);
    boolean v2 = length > 0 && b[from] == BatchFormat.VERSION_2;
    if (v2) {
      BatchFormat.checkV2Header(b, from, length);
    } else {
      BatchFormat.checkHeader(b, from, length);
    }
    if (!BatchFormat.checksumMatches(b, from, length, crc)) {
      long base = v2 ? KafkaBatch.baseOffset(b, from + BatchFormat.V2_PREFIX_SIZE)
          : BatchFormat.longAt(b, from + BatchFormat.BASE_OFFSET);
      throw new CorruptBatchException("corrupt batch at offset " + base + ": its CRC32C does not match");
    }
    return wrap(b, from, length);
  }

  /**
   * Starts reading a bare Kafka record batch v2 held in {@code b[from, from + length)}, as a Kafka
   * producer sends it or a Kafka fetch returns it. Its CRC is not checked here
   * ({@link KafkaBatch#crcMatches}); compressed records are decompressed here.
   */
  public BatchReader wrapKafka(byte[] b, int from, int length) {
    checkBounds(b, from, length);
    startKafka(b, from, length);
    return this;
  }

  private void startKafka(byte[] b, int from, int length) {
    KafkaBatch.checkHeader(b, from, length);
    int attributes = KafkaBatch.attributes(b, from);
    Compression codec = Compression.ofCode(attributes & KafkaBatch.COMPRESSION_MASK);
    long base = KafkaBatch.baseOffset(b, from);
    int recordsFrom = from + KafkaBatch.HEADER_SIZE;
    int recordsLength = length - KafkaBatch.HEADER_SIZE;
    if (codec == Compression.NONE) {
      start(b, recordsFrom, recordsLength, KafkaBatch.recordCount(b, from), base, KafkaBatch.baseTimestamp(b, from));
    } else {
      int size = decompressed.fill(codec, b, recordsFrom, recordsLength, "Kafka batch at offset " + base);
      start(decompressed.array(), 0, size, KafkaBatch.recordCount(b, from), base, KafkaBatch.baseTimestamp(b, from));
    }
    kafka = true;
    kafkaAttributes = attributes;
    compression = codec;
    lastOffsetDelta = KafkaBatch.lastOffsetDelta(b, from);
    // Kafka's log append time lives in the max timestamp; the records keep what the producer set.
    logAppendTime = (kafkaAttributes & KafkaBatch.TIMESTAMP_TYPE) != 0;
    appendTime = KafkaBatch.maxTimestamp(b, from);
  }

  /**
   * Starts reading a bare records section, as a producer sends it ({@code EncodedRecords} in
   * produce.proto): {@code count} records in {@code b[from, from + length)} whose timestamps are
   * deltas from {@code baseTimestamp}. Offsets count from 0.
   */
  public BatchReader wrapRecords(byte[] b, int from, int length, int count, long baseTimestamp) {
    checkBounds(b, from, length);
    start(b, from, length, count, 0, baseTimestamp);
    return this;
  }

  private static void checkBounds(byte[] b, int from, int length) {
    if (from < 0 || length < 0 || from > b.length - length) {
      throw new CorruptBatchException("corrupt batch: [" + from + ", " + from + " + " + length + ") is outside "
          + b.length + " bytes");
    }
  }

  private void start(byte[] b, int recordsFrom, int recordsLength, int recordCount, long offset, long timestamp) {
    if (recordCount < 0) {
      throw new CorruptBatchException("corrupt batch: record count " + recordCount);
    }
    buf = b;
    pos = recordsFrom;
    limit = recordsFrom + recordsLength;
    count = recordCount;
    baseOffset = offset;
    baseTimestamp = timestamp;
    index = -1;
    offsetDelta = -1;
    kafka = false;
    compression = Compression.NONE;
    kafkaAttributes = 0;
    appendTime = 0;
    logAppendTime = false;
  }

  public long baseOffset() {
    return baseOffset;
  }

  public int recordCount() {
    return count;
  }

  /** The offset after the batch's last record. */
  public long nextOffset() {
    return kafka ? baseOffset + lastOffsetDelta + 1 : baseOffset + count;
  }

  /** The codec the batch's records came in; NONE for version 1. */
  public Compression compression() {
    return compression;
  }

  /** True when every record's timestamp is the log append time. */
  public boolean logAppendTime() {
    return logAppendTime;
  }

  /** A Kafka batch's transactional bit (Brook writes none). */
  public boolean isTransactional() {
    return (kafkaAttributes & KafkaBatch.TRANSACTIONAL) != 0;
  }

  /** A Kafka batch's control bit: its records are transaction markers, not data (Brook writes none). */
  public boolean isControl() {
    return (kafkaAttributes & KafkaBatch.CONTROL) != 0;
  }

  /**
   * Moves past the records below {@code offset} reading only their lengths, so that the following
   * {@link #next()} returns the record at {@code offset} (or false, when it is past the batch).
   */
  public void skipTo(long offset) {
    if (kafka) {
      skipKafkaTo(offset);
      return;
    }
    while (index + 1 < count && baseOffset + index + 1 < offset) {
      int bodyLength = varint();
      need(bodyLength);
      pos += bodyLength;
      index++;
    }
  }

  /** Reads only each record's length and offset delta: the offset of a Kafka record is in it. */
  private void skipKafkaTo(long target) {
    while (index + 1 < count) {
      int recordStart = pos;
      int bodyLength = length(zigZagInt());
      need(bodyLength);
      int bodyEnd = pos + bodyLength;
      skip(1); // attributes
      zigZagLong(); // timestamp delta
      int delta = nextOffsetDelta();
      if (baseOffset + delta >= target) {
        pos = recordStart; // next() reads this record
        return;
      }
      offsetDelta = delta;
      pos = bodyEnd;
      index++;
    }
  }

  /** Advances to the next record; false after the last one. */
  public boolean next() {
    if (index + 1 >= count) {
      if (pos != limit) {
        throw new CorruptBatchException("corrupt batch at offset " + baseOffset + ": " + (limit - pos)
            + " bytes after its " + count + " records");
      }
      return false;
    }
    index++;
    if (kafka) {
      nextKafka();
      return true;
    }
    offset = baseOffset + index;
    valueNull = false;
    int bodyLength = varint();
    int bodyStart = pos;
    need(bodyLength);
    long ts = baseTimestamp + zigZagLong();
    timestamp = logAppendTime ? appendTime : ts;
    int keyField = varint();
    keyLength = keyField - 1;
    keyOffset = pos;
    if (keyLength > 0) {
      skip(keyLength);
    }
    valueLength = varint();
    valueOffset = pos;
    skip(valueLength);
    headerCount = varint();
    if (headerCount < 0 || headerCount > bodyLength) {
      throw corrupt("header count " + headerCount);
    }
    if (headers.length < headerCount * 4) {
      headers = new int[Math.max(headerCount * 4, headers.length * 2)];
    }
    for (int j = 0; j < headerCount; j++) {
      int nameLength = varint();
      headers[j * 4] = pos;
      headers[j * 4 + 1] = nameLength;
      skip(nameLength);
      int length = varint();
      headers[j * 4 + 2] = pos;
      headers[j * 4 + 3] = length;
      skip(length);
    }
    if (pos != bodyStart + bodyLength) {
      throw corrupt("record length mismatch");
    }
    return true;
  }

  private void nextKafka() {
    int bodyLength = length(zigZagInt());
    int bodyStart = pos;
    need(bodyLength);
    skip(1); // attributes: none defined for records
    long ts = baseTimestamp + zigZagLong();
    timestamp = logAppendTime ? appendTime : ts;
    offsetDelta = nextOffsetDelta();
    offset = baseOffset + offsetDelta;
    keyLength = nullableLength(zigZagInt(), "key");
    keyOffset = pos;
    if (keyLength > 0) {
      skip(keyLength);
    }
    int rawValueLength = nullableLength(zigZagInt(), "value");
    valueNull = rawValueLength < 0;
    valueLength = Math.max(0, rawValueLength);
    valueOffset = pos;
    skip(valueLength);
    headerCount = zigZagInt();
    if (headerCount < 0 || headerCount > bodyLength) {
      throw corrupt("header count " + headerCount);
    }
    if (headers.length < headerCount * 4) {
      headers = new int[Math.max(headerCount * 4, headers.length * 2)];
    }
    for (int j = 0; j < headerCount; j++) {
      int nameLength = length(zigZagInt());
      headers[j * 4] = pos;
      headers[j * 4 + 1] = nameLength;
      skip(nameLength);
      int length = nullableLength(zigZagInt(), "header value");
      headers[j * 4 + 2] = pos;
      headers[j * 4 + 3] = length;
      if (length > 0) {
        skip(length);
      }
    }
    if (pos != bodyStart + bodyLength) {
      throw corrupt("record length mismatch");
    }
  }

  /** Offset deltas rise from record to record and end at the batch's last offset delta at most. */
  private int nextOffsetDelta() {
    int delta = zigZagInt();
    if (delta <= offsetDelta || delta > lastOffsetDelta) {
      throw corrupt("offset delta " + delta + " after " + offsetDelta + " (last offset delta " + lastOffsetDelta + ")");
    }
    return delta;
  }

  /** The array the positions refer to. */
  public byte[] array() {
    return buf;
  }

  public long offset() {
    return offset;
  }

  /** The record's timestamp; for a batch with log-append-time timestamps, the batch's append time. */
  public long timestamp() {
    return timestamp;
  }

  public boolean hasKey() {
    return keyLength >= 0;
  }

  public int keyOffset() {
    return keyOffset;
  }

  /** -1 when the record has no key. */
  public int keyLength() {
    return keyLength;
  }

  public int valueOffset() {
    return valueOffset;
  }

  /** 0 for a null value too: see {@link #hasValue()}. */
  public int valueLength() {
    return valueLength;
  }

  /** False only for a Kafka record with a null value (a tombstone); Brook's records always have one. */
  public boolean hasValue() {
    return !valueNull;
  }

  /** Bytes of payload: key, value, header names and values (what Brook's per-record limit counts). */
  public int payloadSize() {
    int size = Math.max(0, keyLength) + valueLength;
    for (int j = 0; j < headerCount; j++) {
      size += headers[j * 4 + 1] + Math.max(0, headers[j * 4 + 3]);
    }
    return size;
  }

  public int headerCount() {
    return headerCount;
  }

  public int headerNameOffset(int i) {
    return headers[i * 4];
  }

  public int headerNameLength(int i) {
    return headers[i * 4 + 1];
  }

  public int headerValueOffset(int i) {
    return headers[i * 4 + 2];
  }

  /** 0 for a null value too: see {@link #hasHeaderValue(int)}. */
  public int headerValueLength(int i) {
    return Math.max(0, headers[i * 4 + 3]);
  }

  /** False only for a Kafka header with a null value; Brook's headers always have one. */
  public boolean hasHeaderValue(int i) {
    return headers[i * 4 + 3] >= 0;
  }

  /** A copy of the key, or null when the record has none. */
  public byte[] copyKey() {
    return keyLength < 0 ? null : Arrays.copyOfRange(buf, keyOffset, keyOffset + keyLength);
  }

  /** A copy of the value; empty for a null value. */
  public byte[] copyValue() {
    return Arrays.copyOfRange(buf, valueOffset, valueOffset + valueLength);
  }

  public byte[] copyHeaderName(int i) {
    return Arrays.copyOfRange(buf, headerNameOffset(i), headerNameOffset(i) + headerNameLength(i));
  }

  /** A copy of the header's value; empty for a null value. */
  public byte[] copyHeaderValue(int i) {
    return Arrays.copyOfRange(buf, headerValueOffset(i), headerValueOffset(i) + headerValueLength(i));
  }

  private int varint() {
    int result = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      need(1);
      byte b = buf[pos++];
      result |= (b & 0x7f) << shift;
      if (b >= 0) {
        if (result < 0) {
          throw corrupt("negative length " + result);
        }
        return result;
      }
    }
    throw corrupt("varint longer than 5 bytes");
  }

  /** A Kafka varint: up to five bytes, zig-zag. */
  private int zigZagInt() {
    int raw = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      need(1);
      byte b = buf[pos++];
      raw |= (b & 0x7f) << shift;
      if (b >= 0) {
        return (raw >>> 1) ^ -(raw & 1);
      }
    }
    throw corrupt("varint longer than 5 bytes");
  }

  private int length(int n) {
    if (n < 0) {
      throw corrupt("negative length " + n);
    }
    return n;
  }

  /** A Kafka length that may be -1 for null. */
  private int nullableLength(int n, String what) {
    if (n < -1) {
      throw corrupt("negative " + what + " length " + n);
    }
    return n;
  }

  private long zigZagLong() {
    long z = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      need(1);
      byte b = buf[pos++];
      z |= (long) (b & 0x7f) << shift;
      if (b >= 0) {
        return (z >>> 1) ^ -(z & 1);
      }
    }
    throw corrupt("varlong longer than 10 bytes");
  }

  private void skip(int length) {
    need(length);
    pos += length;
  }

  private void need(int n) {
    if (n > limit - pos) {
      throw corrupt("needs " + n + " bytes at " + pos + ", has " + (limit - pos));
    }
  }

  private CorruptBatchException corrupt(String what) {
    if (kafka) {
      return new CorruptBatchException("corrupt Kafka batch at offset " + baseOffset + ", record " + index + ": " + what);
    }
    return new CorruptBatchException("corrupt batch at offset " + (baseOffset + index) + ": " + what);
  }
}
