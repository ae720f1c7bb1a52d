package io.brook.protocol.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Records with every shape a Kafka batch can hold (null and empty keys, values and header values, a
 * timestamp before the first, a value that spans several codec blocks), written by kafka-clients'
 * own builder or by {@link KafkaBatchWriter}, and checks that what a reader sees is them.
 */
final class KafkaRecords {
  private KafkaRecords() {}

  record TestHeader(String name, byte[] value) {}

  record TestRecord(long timestamp, byte[] key, byte[] value, List<TestHeader> headers) {}

  static List<TestRecord> sample() {
    List<TestRecord> out = new ArrayList<>();
    out.add(new TestRecord(1_000, null, utf8("v0"), List.of()));
    out.add(new TestRecord(995, new byte[0], new byte[0], List.of(new TestHeader("trace", utf8("ab")),
        new TestHeader("nothing", null), new TestHeader("empty", new byte[0]))));
    out.add(new TestRecord(2_000, utf8("k2"), null, List.of()));
    out.add(new TestRecord(1_500, utf8("k3"), large(200_000), List.of(new TestHeader("h", large(70)))));
    for (int i = 4; i < 10; i++) {
      out.add(new TestRecord(1_000 + i, utf8("k" + i), utf8("value " + i), List.of()));
    }
    return out;
  }

  /** Compressible but not uniform, so every codec writes several blocks for it. */
  static byte[] large(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) ((i / 7) % 61 + (i % 3));
    }
    return b;
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** The records as kafka-clients' MemoryRecordsBuilder writes them into one batch. */
  static byte[] byKafka(Compression codec, long baseOffset, long producerId, short epoch, int baseSequence,
      List<TestRecord> records) {
    MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(1024), RecordBatch.MAGIC_VALUE_V2,
        org.apache.kafka.common.compress.Compression.of(codec.name().toLowerCase()).build(),
        TimestampType.CREATE_TIME, baseOffset, RecordBatch.NO_TIMESTAMP, producerId, epoch, baseSequence);
    for (TestRecord r : records) {
      Header[] headers = r.headers().stream().map(h -> new RecordHeader(h.name(), h.value())).toArray(Header[]::new);
      builder.append(r.timestamp(), r.key(), r.value(), headers);
    }
    ByteBuffer bytes = builder.build().buffer();
    byte[] out = new byte[bytes.remaining()];
    bytes.get(out);
    return out;
  }

  /** Adds the records to a writer that has begun a batch. */
  static void write(KafkaBatchWriter writer, List<TestRecord> records) {
    for (TestRecord r : records) {
      writer.record(r.timestamp(), r.key(), 0, r.key() == null ? -1 : r.key().length, r.value(), 0,
          r.value() == null ? -1 : r.value().length, r.headers().size());
      for (TestHeader h : r.headers()) {
        byte[] name = utf8(h.name());
        writer.header(name, 0, name.length, h.value(), 0, h.value() == null ? -1 : h.value().length);
      }
    }
  }

  /** Reads every record of the wrapped batch and checks it is the next of {@code expected}, at consecutive offsets. */
  static void assertReads(BatchReader reader, List<TestRecord> expected, long baseOffset) {
    for (int i = 0; i < expected.size(); i++) {
      TestRecord want = expected.get(i);
      assertThat(reader.next()).as("record %d", i).isTrue();
      assertThat(reader.offset()).isEqualTo(baseOffset + i);
      assertThat(reader.timestamp()).isEqualTo(want.timestamp());
      assertThat(reader.hasKey()).isEqualTo(want.key() != null);
      assertThat(reader.copyKey()).isEqualTo(want.key());
      assertThat(reader.hasValue()).isEqualTo(want.value() != null);
      assertThat(reader.copyValue()).isEqualTo(want.value() == null ? new byte[0] : want.value());
      assertThat(reader.headerCount()).isEqualTo(want.headers().size());
      for (int h = 0; h < want.headers().size(); h++) {
        TestHeader wh = want.headers().get(h);
        assertThat(new String(reader.copyHeaderName(h), StandardCharsets.UTF_8)).isEqualTo(wh.name());
        assertThat(reader.hasHeaderValue(h)).isEqualTo(wh.value() != null);
        assertThat(reader.copyHeaderValue(h)).isEqualTo(wh.value() == null ? new byte[0] : wh.value());
      }
    }
    assertThat(reader.next()).isFalse();
  }

  /** Checks that a record kafka-clients read is {@code want}. */
  static void assertKafkaRecord(Record got, TestRecord want, long offset) {
    assertThat(got.offset()).isEqualTo(offset);
    assertThat(got.timestamp()).isEqualTo(want.timestamp());
    assertThat(got.hasKey()).isEqualTo(want.key() != null);
    if (want.key() != null) {
      assertThat(bytes(got.key())).isEqualTo(want.key());
    }
    assertThat(got.hasValue()).isEqualTo(want.value() != null);
    if (want.value() != null) {
      assertThat(bytes(got.value())).isEqualTo(want.value());
    }
    Header[] headers = got.headers();
    assertThat(headers).hasSize(want.headers().size());
    for (int h = 0; h < headers.length; h++) {
      assertThat(headers[h].key()).isEqualTo(want.headers().get(h).name());
      assertThat(headers[h].value()).isEqualTo(want.headers().get(h).value());
    }
  }

  static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }
}
