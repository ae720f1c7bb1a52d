package io.brook.client.producer;

import io.brook.client.Header;
import java.util.Arrays;
import java.util.List;

/**
 * A batch's records in the stored records format (see {@link RecordEncoding}), back to back in one
 * growing array, with where each starts and its timestamp: the form a broker older than
 * {@code kafka_batch} reads (D49). Timestamps are deltas from the first record's.
 */
final class EncodedRecords {
  private byte[] bytes;
  private int length;
  private int[] starts;
  private long[] timestamps;
  private int count;
  private long baseTimestamp;

  EncodedRecords(int initialBytes, int expectedRecords) {
    bytes = new byte[Math.max(64, initialBytes)];
    starts = new int[Math.max(16, expectedRecords)];
    timestamps = new long[Math.max(16, expectedRecords)];
  }

  /** Appends one record and returns the bytes it took. */
  int append(byte[] key, byte[] value, List<Header> headers, long timestampMs) {
    if (count == 0) {
      baseTimestamp = timestampMs;
    }
    long delta = timestampMs - baseTimestamp;
    int body = RecordEncoding.bodySize(key, value, headers, delta);
    int size = RecordEncoding.size(body);
    ensure(length + size);
    if (count == starts.length) {
      starts = Arrays.copyOf(starts, count * 2);
      timestamps = Arrays.copyOf(timestamps, count * 2);
    }
    RecordEncoding.write(bytes, length, body, key, value, headers, delta);
    starts[count] = length;
    timestamps[count] = timestampMs;
    count++;
    length += size;
    return size;
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

  /** What the records' timestamp deltas are from. */
  long baseTimestamp() {
    return baseTimestamp;
  }

  long timestamp(int i) {
    return timestamps[i];
  }
}
