package io.brook.protocol.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** The writer reused batch after batch, its misuse refused, and skipping inside what it wrote. */
class KafkaBatchWriterTest {
  private final KafkaBatchWriter writer = new KafkaBatchWriter();
  private final CRC32C crc = new CRC32C();

  @Test
  void aReusedWriterForgetsTheLastBatch() {
    writer.begin(0, 0, Compression.GZIP).producer(5, (short) 1, 10).logAppendTime(99);
    KafkaRecords.write(writer, KafkaRecords.sample());
    writer.finish();

    writer.begin(BatchFormat.V2_PREFIX_SIZE, 7, Compression.NONE);
    writer.record(50, KafkaRecords.utf8("k"), KafkaRecords.utf8("v"));
    int end = writer.finish();
    byte[] b = writer.array();
    int at = BatchFormat.V2_PREFIX_SIZE;
    assertThat(KafkaBatch.crcMatches(b, at, end - at, crc)).isTrue();
    assertThat(KafkaBatch.compression(b, at)).isEqualTo(Compression.NONE);
    assertThat(KafkaBatch.attributes(b, at) & KafkaBatch.TIMESTAMP_TYPE).isZero();
    assertThat(KafkaBatch.producerId(b, at)).isEqualTo(-1);
    assertThat(KafkaBatch.producerEpoch(b, at)).isEqualTo((short) -1);
    assertThat(KafkaBatch.baseSequence(b, at)).isEqualTo(-1);
    assertThat(KafkaBatch.recordCount(b, at)).isEqualTo(1);
    assertThat(KafkaBatch.nextOffset(b, at)).isEqualTo(8);
    assertThat(KafkaBatch.baseTimestamp(b, at)).isEqualTo(50);
    assertThat(KafkaBatch.maxTimestamp(b, at)).isEqualTo(50);
  }

  @Test
  void anEmptyBatchIsValidAndReadsAsNoRecords() {
    writer.begin(0, 3, Compression.ZSTD);
    int end = writer.finish();
    assertThat(KafkaBatch.crcMatches(writer.array(), 0, end, crc)).isTrue();
    BatchReader reader = new BatchReader().wrapKafka(writer.array(), 0, end);
    assertThat(reader.recordCount()).isZero();
    assertThat(reader.next()).isFalse();
  }

  @Test
  void headersMustComeAsAnnounced() {
    byte[] name = "h".getBytes(StandardCharsets.UTF_8);
    writer.begin(0, 0, Compression.NONE);
    writer.record(1, null, 0, -1, new byte[1], 0, 1, 2);
    writer.header(name, 0, 1, null, 0, -1);
    assertThatThrownBy(writer::finish).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("1 headers of the last record are missing");
    assertThatThrownBy(() -> writer.record(2, null, new byte[0])).isInstanceOf(IllegalStateException.class);
    writer.header(name, 0, 1, new byte[0], 0, 0);
    assertThatThrownBy(() -> writer.header(name, 0, 1, null, 0, -1)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("more headers than the record announced");
    assertThatThrownBy(() -> new KafkaBatchWriter().record(1, null, new byte[0]))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("before begin");
  }

  /** The producer's and the broker's hot path: once the arrays have grown, no garbage per record. */
  @Test
  void writingAndReadingUncompressedRecordsAllocatesNothingOnceWarm() {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    byte[] key = new byte[16];
    byte[] value = new byte[100];
    byte[] name = "trace".getBytes(StandardCharsets.UTF_8);
    BatchReader reader = new BatchReader();
    long sum = 0;
    long before = 0;
    for (int round = 0; round < 2; round++) { // the first round grows the arrays
      before = threads.getCurrentThreadAllocatedBytes();
      writer.begin(BatchFormat.V2_PREFIX_SIZE, 0, Compression.NONE);
      for (int i = 0; i < 10_000; i++) {
        writer.record(i, key, 0, key.length, value, 0, value.length, 1);
        writer.header(name, 0, name.length, value, 0, 8);
      }
      int end = writer.finish();
      BatchFormat.writeV2Prefix(writer.array(), 0, 0, 0, 0, 0);
      reader.wrap(writer.array(), 0, end);
      while (reader.next()) {
        sum += reader.valueLength() + reader.headerValueLength(0);
      }
    }
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    assertThat(sum).isEqualTo(2 * 10_000 * 108);
    assertThat(allocated).as("bytes allocated for 10,000 records").isLessThan(10_000);
  }

  @Test
  void skipToLandsOnTheRequestedOffsetOrPastTheBatch() {
    List<KafkaRecords.TestRecord> records = KafkaRecords.sample();
    writer.begin(0, 100, Compression.LZ4);
    KafkaRecords.write(writer, records);
    int end = writer.finish();
    BatchReader reader = new BatchReader();

    reader.wrapKafka(writer.array(), 0, end).skipTo(50);
    assertThat(reader.next()).isTrue();
    assertThat(reader.offset()).isEqualTo(100);

    reader.wrapKafka(writer.array(), 0, end).skipTo(109);
    assertThat(reader.next()).isTrue();
    assertThat(reader.offset()).isEqualTo(109);
    assertThat(reader.next()).isFalse();

    reader.wrapKafka(writer.array(), 0, end).skipTo(500);
    assertThat(reader.next()).isFalse();
  }
}
