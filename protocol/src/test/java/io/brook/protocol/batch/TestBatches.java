package io.brook.protocol.batch;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Batches written by hand from the layout in {@link BatchFormat}, not by the broker's encoder, so the
 * tests that use them also pin the format a client depends on. Shared with the client's tests
 * through this module's test jar.
 */
public final class TestBatches {
  private TestBatches() {}

  /** A batch of keyless records with these values, offsets from {@code baseOffset}, all at time 0. */
  public static byte[] ofValues(long baseOffset, String... values) {
    ByteArrayOutputStream records = new ByteArrayOutputStream();
    for (String v : values) {
      record(records, 0, null, v.getBytes(StandardCharsets.UTF_8), new String[0]);
    }
    return batch(0, values.length, baseOffset, 0, records.toByteArray());
  }

  /**
   * A stored version 2 batch (the prefix, then a Kafka batch written by {@link KafkaBatchWriter},
   * whose bytes kafka-clients reads: KafkaBatchInteropTest) of keyless records with these values,
   * offsets from {@code baseOffset}, timestamps 1000, 1001 and so on; a null value stays null.
   */
  public static byte[] storedV2(long baseOffset, Compression codec, String... values) {
    KafkaBatchWriter writer = new KafkaBatchWriter().begin(BatchFormat.V2_PREFIX_SIZE, baseOffset, codec)
        .partitionLeaderEpoch(0);
    for (int i = 0; i < values.length; i++) {
      writer.record(1_000 + i, null, values[i] == null ? null : values[i].getBytes(StandardCharsets.UTF_8));
    }
    int end = writer.finish();
    BatchFormat.writeV2Prefix(writer.array(), 0, 0, 1_000 + values.length, 5_000, 0);
    return Arrays.copyOf(writer.array(), end);
  }

  /** A record as BatchFormat lays it out; headers as name, value pairs. */
  public static void record(ByteArrayOutputStream out, long delta, byte[] key, byte[] value, String[] headers) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    zigZag(body, delta);
    varint(body, key == null ? 0 : key.length + 1);
    if (key != null) {
      body.writeBytes(key);
    }
    varint(body, value.length);
    body.writeBytes(value);
    varint(body, headers.length / 2);
    for (String h : headers) {
      byte[] b = h.getBytes(StandardCharsets.UTF_8);
      varint(body, b.length);
      body.writeBytes(b);
    }
    varint(out, body.size());
    out.writeBytes(body.toByteArray());
  }

  public static byte[] batch(int attributes, int count, long baseOffset, long baseTimestamp, byte[] records) {
    ByteBuffer b = ByteBuffer.allocate(BatchFormat.HEADER_SIZE + records.length).order(ByteOrder.LITTLE_ENDIAN);
    b.put(0, BatchFormat.VERSION).put(BatchFormat.ATTRIBUTES, (byte) attributes)
        .putInt(BatchFormat.RECORD_COUNT, count).putLong(BatchFormat.BASE_OFFSET, baseOffset)
        .putLong(BatchFormat.BASE_TIMESTAMP, baseTimestamp).putInt(BatchFormat.RECORDS_LENGTH, records.length)
        .put(BatchFormat.HEADER_SIZE, records);
    CRC32C crc = new CRC32C();
    crc.update(records);
    b.putInt(BatchFormat.CRC, (int) crc.getValue());
    return Arrays.copyOf(b.array(), b.capacity());
  }

  static void varint(ByteArrayOutputStream out, int v) {
    while ((v & ~0x7f) != 0) {
      out.write((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    out.write(v);
  }

  static void zigZag(ByteArrayOutputStream out, long v) {
    long z = (v << 1) ^ (v >> 63);
    while ((z & ~0x7fL) != 0) {
      out.write((int) ((z & 0x7f) | 0x80));
      z >>>= 7;
    }
    out.write((int) z);
  }
}
