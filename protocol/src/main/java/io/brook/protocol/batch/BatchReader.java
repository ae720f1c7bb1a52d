package io.brook.protocol.batch;

import java.util.Arrays;

/**
 * Walks the records of one batch in {@link BatchFormat} without allocating: after {@link #next()}
 * the current record's fields are positions in {@link #array()}, and the caller copies what it
 * keeps. One reader is reused batch after batch; it is not thread-safe.
 *
 * <p>Every length is checked against the batch's bounds, so a corrupt batch fails with a
 * {@link CorruptBatchException} and never reads past it.
 */
public final class BatchReader {
  private byte[] buf;
  private int pos;
  private int limit;
  private long baseOffset;
  private long baseTimestamp;
  private long appendTime;
  private boolean logAppendTime;
  private int count;
  private int index;

  private long timestamp;
  private int keyOffset;
  private int keyLength;
  private int valueOffset;
  private int valueLength;
  private int headerCount;
  /** Per header: name offset, name length, value offset, value length. */
  private int[] headers = new int[16];

  /** Starts reading the batch held in {@code b[from, from + length)}. */
  public BatchReader wrap(byte[] b, int from, int length) {
    checkBounds(b, from, length);
    BatchFormat.checkHeader(b, from, length);
    int headerSize = BatchFormat.headerSize(b, from);
    start(b, from + headerSize, length - headerSize, BatchFormat.intAt(b, from + BatchFormat.RECORD_COUNT),
        BatchFormat.longAt(b, from + BatchFormat.BASE_OFFSET), BatchFormat.longAt(b, from + BatchFormat.BASE_TIMESTAMP));
    appendTime = BatchFormat.longAt(b, from + BatchFormat.APPEND_TIME);
    logAppendTime = (b[from + BatchFormat.ATTRIBUTES] & BatchFormat.ATTR_LOG_APPEND_TIME) != 0;
    return this;
  }

  /**
   * Starts reading a bare records section, as a producer sends it ({@code EncodedRecords} in
   * produce.proto): {@code count} records in {@code b[from, from + length)} whose timestamps are
   * deltas from {@code baseTimestamp}. Offsets count from 0.
   */
  public BatchReader wrapRecords(byte[] b, int from, int length, int count, long baseTimestamp) {
    checkBounds(b, from, length);
    start(b, from, length, count, 0, baseTimestamp);
    appendTime = 0;
    logAppendTime = false;
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
  }

  public long baseOffset() {
    return baseOffset;
  }

  public int recordCount() {
    return count;
  }

  /** The offset after the batch's last record. */
  public long nextOffset() {
    return baseOffset + count;
  }

  /**
   * Moves past the records below {@code offset} reading only their lengths, so that the following
   * {@link #next()} returns the record at {@code offset} (or false, when it is past the batch).
   */
  public void skipTo(long offset) {
    while (index + 1 < count && baseOffset + index + 1 < offset) {
      int bodyLength = varint();
      need(bodyLength);
      pos += bodyLength;
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

  /** The array the positions refer to. */
  public byte[] array() {
    return buf;
  }

  public long offset() {
    return baseOffset + index;
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

  public int valueLength() {
    return valueLength;
  }

  /** Bytes of payload: key, value, header names and values (what max.message.bytes counts). */
  public int payloadSize() {
    int size = Math.max(0, keyLength) + valueLength;
    for (int j = 0; j < headerCount; j++) {
      size += headers[j * 4 + 1] + headers[j * 4 + 3];
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

  public int headerValueLength(int i) {
    return headers[i * 4 + 3];
  }

  /** A copy of the key, or null when the record has none. */
  public byte[] copyKey() {
    return keyLength < 0 ? null : Arrays.copyOfRange(buf, keyOffset, keyOffset + keyLength);
  }

  public byte[] copyValue() {
    return Arrays.copyOfRange(buf, valueOffset, valueOffset + valueLength);
  }

  public byte[] copyHeaderName(int i) {
    return Arrays.copyOfRange(buf, headerNameOffset(i), headerNameOffset(i) + headerNameLength(i));
  }

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
    return new CorruptBatchException("corrupt batch at offset " + (baseOffset + index) + ": " + what);
  }
}
