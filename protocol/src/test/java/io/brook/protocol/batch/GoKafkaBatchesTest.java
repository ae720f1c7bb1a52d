package io.brook.protocol.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32C;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One Kafka batch per codec written by the Go client's encoder (fixtures written by client-go's
 * TestGoKafkaBatchFixtures, which also checks them) read by Java's {@link BatchReader} and by
 * kafka-clients' own MemoryRecords: the Go and Java implementations agree on the format, Kafka's
 * CRC-32C and each codec's framing (snappy as xerial frames, lz4 frames, gzip, zstd).
 */
class GoKafkaBatchesTest {
  private static final long T = 1_700_000_000_000L;
  private static final List<String> EXPECTED = List.of(
      "k|v|" + T + "|",
      "-|no key|" + (T - 5) + "|h=1,h=,\u00e9t\u00e9=x,",
      "||" + (T + 3_600_000) + "|",
      "big|" + "compressible ".repeat(3200).length() + " bytes|" + T + "|");

  private static byte[] fixture(Compression codec) throws Exception {
    String name = "go/" + codec.name().toLowerCase(Locale.ROOT) + ".kafka";
    try (InputStream in = GoKafkaBatchesTest.class.getResourceAsStream(name)) {
      assertThat(in).as(name).isNotNull();
      return in.readAllBytes();
    }
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void javasBatchReaderReadsTheGoWrittenBatch(Compression codec) throws Exception {
    byte[] b = fixture(codec);
    assertThat(KafkaBatch.crcMatches(b, 0, b.length, new CRC32C())).isTrue();
    assertThat(KafkaBatch.compression(b, 0)).isEqualTo(codec);
    assertThat(KafkaBatch.producerId(b, 0)).isEqualTo(4242);
    assertThat(KafkaBatch.producerEpoch(b, 0)).isEqualTo((short) 7);
    assertThat(KafkaBatch.baseSequence(b, 0)).isEqualTo(100);
    BatchReader r = new BatchReader().wrapKafka(b, 0, b.length);
    List<String> read = new ArrayList<>();
    while (r.next()) {
      StringBuilder s = new StringBuilder(r.hasKey() ? text(r.copyKey()) : "-").append('|');
      byte[] value = r.copyValue();
      s.append(value.length > 100 ? value.length + " bytes" : text(value)).append('|').append(r.timestamp()).append('|');
      for (int h = 0; h < r.headerCount(); h++) {
        s.append(text(r.copyHeaderName(h))).append('=').append(text(r.copyHeaderValue(h))).append(',');
      }
      read.add(s.toString());
    }
    assertThat(read).containsExactlyElementsOf(EXPECTED);
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void kafkasOwnReaderReadsTheGoWrittenBatch(Compression codec) throws Exception {
    byte[] b = fixture(codec);
    List<String> read = new ArrayList<>();
    for (MutableRecordBatch batch : MemoryRecords.readableRecords(ByteBuffer.wrap(b)).batches()) {
      batch.ensureValid();
      assertThat((int) batch.compressionType().id).isEqualTo(codec.code());
      for (Record r : batch) {
        StringBuilder s = new StringBuilder(r.hasKey() ? text(bytes(r.key())) : "-").append('|');
        s.append(r.valueSize() > 100 ? r.valueSize() + " bytes" : text(bytes(r.value()))).append('|')
            .append(r.timestamp()).append('|');
        for (org.apache.kafka.common.header.Header h : r.headers()) {
          s.append(h.key()).append('=').append(text(h.value())).append(',');
        }
        read.add(s.toString());
      }
    }
    assertThat(read).containsExactlyElementsOf(EXPECTED);
  }

  private static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }
}
