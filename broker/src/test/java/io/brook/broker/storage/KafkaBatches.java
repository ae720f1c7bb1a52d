package io.brook.broker.storage;

import io.brook.protocol.batch.BatchFormat;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Kafka record batches v2 made and read by kafka-clients' own code (MemoryRecordsBuilder, as its
 * producer builds them; MemoryRecords, as its consumer reads them), for the tests of the Kafka form.
 */
public final class KafkaBatches {
  private KafkaBatches() {}

  /** A record to put in a batch; null key or value as Kafka allows. */
  public record KRecord(long timestamp, String key, String value, Header... headers) {}

  public static KRecord rec(long timestamp, String key, String value) {
    return new KRecord(timestamp, key, value);
  }

  /** The codec by Kafka's name: none, gzip, snappy, lz4, zstd. */
  public static Compression codec(String name) {
    return Compression.of(name).build();
  }

  /** A plain batch, base offset 0, as a non-idempotent producer sends it. */
  public static byte[] batch(Compression codec, KRecord... records) {
    return build(codec, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, false,
        records);
  }

  /** An idempotent producer's batch. */
  public static byte[] idempotent(Compression codec, long producerId, short epoch, int baseSequence,
      KRecord... records) {
    return build(codec, producerId, epoch, baseSequence, false, records);
  }

  public static byte[] build(Compression codec, long producerId, short epoch, int baseSequence, boolean transactional,
      KRecord... records) {
    ByteBuffer buffer = ByteBuffer.allocate(1024 + 2 * sizeOf(records));
    MemoryRecordsBuilder b = new MemoryRecordsBuilder(buffer, RecordBatch.MAGIC_VALUE_V2, codec,
        TimestampType.CREATE_TIME, 0L, RecordBatch.NO_TIMESTAMP, producerId, epoch, baseSequence, transactional,
        false, RecordBatch.NO_PARTITION_LEADER_EPOCH, buffer.capacity());
    long offset = 0;
    for (KRecord r : records) {
      b.appendWithOffset(offset++, r.timestamp(), bytes(r.key()), bytes(r.value()), r.headers());
    }
    return toArray(b.build());
  }

  public static byte[] toArray(MemoryRecords records) {
    ByteBuffer buf = records.buffer().duplicate();
    byte[] out = new byte[buf.remaining()];
    buf.get(out);
    return out;
  }

  /** What kafka-clients reads from {@code kafkaBatch}, after checking its CRC as its consumer does. */
  public static MutableRecordBatch read(byte[] kafkaBatch) {
    List<MutableRecordBatch> batches = new ArrayList<>();
    MemoryRecords.readableRecords(ByteBuffer.wrap(kafkaBatch)).batches().forEach(batches::add);
    if (batches.size() != 1) {
      throw new AssertionError(batches.size() + " batches");
    }
    batches.get(0).ensureValid();
    return batches.get(0);
  }

  /** What kafka-clients reads from the Kafka part of a version 2 stored batch, as a Kafka fetch sends it. */
  public static MutableRecordBatch readStored(byte[] version2) {
    return read(Arrays.copyOfRange(version2, BatchFormat.V2_PREFIX_SIZE, version2.length));
  }

  public static List<Record> records(MutableRecordBatch batch) {
    List<Record> out = new ArrayList<>();
    try (var it = batch.streamingIterator(org.apache.kafka.common.utils.BufferSupplier.create())) {
      it.forEachRemaining(out::add);
    }
    return out;
  }

  public static Header header(String key, String value) {
    return new RecordHeader(key, bytes(value));
  }

  public static String string(ByteBuffer b) {
    if (b == null) {
      return null;
    }
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return new String(out, StandardCharsets.UTF_8);
  }

  private static byte[] bytes(String s) {
    return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }

  private static int sizeOf(KRecord[] records) {
    int n = 0;
    for (KRecord r : records) {
      n += 32 + (r.key() == null ? 0 : r.key().length() * 3) + (r.value() == null ? 0 : r.value().length() * 3);
      for (Header h : r.headers()) {
        n += 16 + h.key().length() * 3 + (h.value() == null ? 0 : h.value().length);
      }
    }
    return n;
  }
}
