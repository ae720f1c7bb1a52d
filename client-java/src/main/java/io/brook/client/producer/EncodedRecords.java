package io.brook.client.producer;

import io.brook.client.Header;
import java.util.Arrays;
import java.util.List;

/**
 * A batch's records in wire format (see {@link RecordEncoding}), back to back in one growing
 * array, with where each starts and its timestamp (for the metadata {@code send} answers).
 */
final class EncodedRecords {
  static final long NO_TIMESTAMP = Long.MIN_VALUE;

  private byte[] bytes;
  private int length;
  private int[] starts = new int[16];
  private long[] timestamps = new long[16];
  private int count;

  EncodedRecords(int initialBytes) {
    bytes = new byte[Math.max(64, initialBytes)];
  }

  /** Appends one record whose {@link RecordEncoding#recordSize} is recordSize. */
  void append(int recordSize, byte[] key, byte[] value, List<Header> headers, Long timestampMs) {
    int element = RecordEncoding.elementSize(recordSize);
    ensure(length + element);
    if (count == starts.length) {
      starts = Arrays.copyOf(starts, count * 2);
      timestamps = Arrays.copyOf(timestamps, count * 2);
    }
    RecordEncoding.write(bytes, length, recordSize, key, value, headers, timestampMs);
    starts[count] = length;
    timestamps[count] = timestampMs == null ? NO_TIMESTAMP : timestampMs;
    count++;
    length += element;
  }

  private void ensure(int capacity) {
    if (capacity > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(capacity, bytes.length * 2));
    }
  }

  int count() {
    return count;
  }

  /** Encoded bytes of all records (what goes into the request). */
  int length() {
    return length;
  }

  byte[] array() {
    return bytes;
  }

  /** The record's own timestamp, or NO_TIMESTAMP. */
  long timestamp(int i) {
    return timestamps[i];
  }

  /** Records from..to-1 copied into a batch of their own. */
  EncodedRecords slice(int from, int to) {
    int start = starts[from];
    int end = to < count ? starts[to] : length;
    EncodedRecords part = new EncodedRecords(end - start);
    System.arraycopy(bytes, start, part.bytes, 0, end - start);
    part.length = end - start;
    part.starts = new int[Math.max(16, to - from)];
    part.timestamps = new long[Math.max(16, to - from)];
    for (int i = from; i < to; i++) {
      part.starts[i - from] = starts[i] - start;
      part.timestamps[i - from] = timestamps[i];
    }
    part.count = to - from;
    return part;
  }
}
