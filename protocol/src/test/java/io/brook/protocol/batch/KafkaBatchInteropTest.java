package io.brook.protocol.batch;

import static io.brook.protocol.batch.KafkaRecords.assertKafkaRecord;
import static io.brook.protocol.batch.KafkaRecords.assertReads;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.protocol.batch.KafkaRecords.TestRecord;
import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Batches cross between Brook and kafka-clients 4.3.1 itself, for every codec: what Kafka's own
 * builder writes, BatchReader reads; what KafkaBatchWriter writes, Kafka's MemoryRecords reads with
 * a valid CRC and the same records.
 */
class KafkaBatchInteropTest {
  private final List<TestRecord> records = KafkaRecords.sample();

  @ParameterizedTest
  @EnumSource(Compression.class)
  void readsWhatKafkasBuilderWrites(Compression codec) {
    byte[] batch = KafkaRecords.byKafka(codec, 500, 7, (short) 2, 40, records);
    assertThat(KafkaBatch.compression(batch, 0)).isEqualTo(codec);
    assertThat(KafkaBatch.crcMatches(batch, 0, batch.length, new CRC32C())).isTrue();

    BatchReader reader = new BatchReader().wrapKafka(batch, 0, batch.length);
    assertThat(reader.baseOffset()).isEqualTo(500);
    assertThat(reader.recordCount()).isEqualTo(records.size());
    assertThat(reader.nextOffset()).isEqualTo(500 + records.size());
    assertThat(reader.compression()).isEqualTo(codec);
    assertReads(reader, records, 500);

    reader.wrapKafka(batch, 0, batch.length).skipTo(504);
    assertThat(reader.next()).isTrue();
    assertThat(reader.offset()).isEqualTo(504);
    assertThat(reader.copyKey()).isEqualTo(records.get(4).key());
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void kafkaReadsWhatTheWriterWritesWithAValidCrc(Compression codec) {
    KafkaBatchWriter writer = new KafkaBatchWriter();
    writer.begin(0, 900, codec).producer(11, (short) 3, 77);
    KafkaRecords.write(writer, records);
    int end = writer.finish();

    MemoryRecords kafka = MemoryRecords.readableRecords(ByteBuffer.wrap(writer.array(), 0, end).slice());
    Iterator<MutableRecordBatch> batches = kafka.batches().iterator();
    MutableRecordBatch batch = batches.next();
    assertThat(batches.hasNext()).isFalse();
    batch.ensureValid();
    assertThat(batch.sizeInBytes()).isEqualTo(end);
    assertThat(batch.compressionType().name).isEqualTo(codec.name().toLowerCase());
    assertThat(batch.baseOffset()).isEqualTo(900);
    assertThat(batch.lastOffset()).isEqualTo(900 + records.size() - 1);
    assertThat(batch.maxTimestamp()).isEqualTo(2_000);
    assertThat(batch.timestampType()).isEqualTo(TimestampType.CREATE_TIME);
    assertThat(batch.producerId()).isEqualTo(11);
    assertThat(batch.producerEpoch()).isEqualTo((short) 3);
    assertThat(batch.baseSequence()).isEqualTo(77);
    assertThat(batch.isTransactional()).isFalse();
    assertThat(batch.isControlBatch()).isFalse();
    int i = 0;
    for (Record r : batch) {
      r.ensureValid();
      assertKafkaRecord(r, records.get(i), 900 + i);
      i++;
    }
    assertThat(i).isEqualTo(records.size());

    assertReads(new BatchReader().wrapKafka(writer.array(), 0, end), records, 900);
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void logAppendTimeIsTheMaxTimestampForKafkaAndForTheReader(Compression codec) {
    KafkaBatchWriter writer = new KafkaBatchWriter();
    writer.begin(0, 0, codec).logAppendTime(123_456);
    KafkaRecords.write(writer, records.subList(0, 3));
    int end = writer.finish();

    MutableRecordBatch batch = MemoryRecords.readableRecords(ByteBuffer.wrap(writer.array(), 0, end).slice())
        .batches().iterator().next();
    batch.ensureValid();
    assertThat(batch.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
    assertThat(batch.maxTimestamp()).isEqualTo(123_456);
    for (Record r : batch) {
      assertThat(r.timestamp()).isEqualTo(123_456);
    }
    BatchReader reader = new BatchReader().wrapKafka(writer.array(), 0, end);
    assertThat(reader.logAppendTime()).isTrue();
    while (reader.next()) {
      assertThat(reader.timestamp()).isEqualTo(123_456);
    }
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void aStoredVersion2BatchIsItsPrefixThenTheKafkaBatch(Compression codec) {
    KafkaBatchWriter writer = new KafkaBatchWriter();
    writer.begin(BatchFormat.V2_PREFIX_SIZE, 0, codec).partitionLeaderEpoch(0);
    KafkaRecords.write(writer, records);
    int end = writer.finish();
    byte[] stored = writer.array();
    KafkaBatch.setBaseOffset(stored, BatchFormat.V2_PREFIX_SIZE, 3_000); // as the log assigns it: no new CRC
    BatchFormat.writeV2Prefix(stored, 0, 0, 9_999, 8_888, 77_777);

    CRC32C crc = new CRC32C();
    assertThat(BatchFormat.version(stored, 0)).isEqualTo(2);
    assertThat(BatchFormat.baseOffset(stored, 0)).isEqualTo(3_000);
    assertThat(BatchFormat.recordCount(stored, 0)).isEqualTo(records.size());
    assertThat(BatchFormat.nextOffset(stored, 0)).isEqualTo(3_000 + records.size());
    assertThat(BatchFormat.runningMaxTimestamp(stored, 0)).isEqualTo(9_999);
    assertThat(BatchFormat.appendTime(stored, 0)).isEqualTo(8_888);
    assertThat(BatchFormat.logPosition(stored, 0)).isEqualTo(77_777);
    assertThat(BatchFormat.checksumMatches(stored, 0, end, crc)).isTrue();
    BatchReader reader = new BatchReader().wrap(stored, 0, end);
    assertThat(reader.baseOffset()).isEqualTo(3_000);
    assertThat(reader.nextOffset()).isEqualTo(3_000 + records.size());
    assertReads(reader, records, 3_000);

    // The Kafka bytes are what a Kafka fetch sends: kafka-clients reads them as they lie.
    MutableRecordBatch batch = MemoryRecords.readableRecords(
        ByteBuffer.wrap(stored, BatchFormat.V2_PREFIX_SIZE, end - BatchFormat.V2_PREFIX_SIZE).slice())
        .batches().iterator().next();
    batch.ensureValid();
    assertThat(batch.baseOffset()).isEqualTo(3_000);
    assertThat(batch.partitionLeaderEpoch()).isZero();

    // The prefix's log-append-time bit gives every record the prefix's append time, as in version 1.
    byte[] appendTimed = java.util.Arrays.copyOf(stored, end);
    appendTimed[BatchFormat.V2_ATTRIBUTES] = BatchFormat.ATTR_LOG_APPEND_TIME;
    reader.wrap(appendTimed, 0, end);
    while (reader.next()) {
      assertThat(reader.timestamp()).isEqualTo(8_888);
    }

    byte[] flipped = java.util.Arrays.copyOf(stored, end);
    flipped[end - 1] ^= 1;
    assertThat(BatchFormat.checksumMatches(flipped, 0, end, crc)).isFalse();
  }

  /** franz-go writes snappy as one raw block, without xerial's framing; Kafka's consumer reads it, so must we. */
  @org.junit.jupiter.api.Test
  void readsSnappyRecordsWrittenAsOneRawBlock() throws Exception {
    KafkaBatchWriter writer = new KafkaBatchWriter().begin(0, 0, Compression.NONE);
    KafkaRecords.write(writer, records);
    int end = writer.finish();
    byte[] raw = org.xerial.snappy.Snappy.compress(
        java.util.Arrays.copyOfRange(writer.array(), KafkaBatch.HEADER_SIZE, end));
    byte[] batch = java.util.Arrays.copyOf(writer.array(), KafkaBatch.HEADER_SIZE + raw.length);
    System.arraycopy(raw, 0, batch, KafkaBatch.HEADER_SIZE, raw.length);
    KafkaBatch.putInt(batch, KafkaBatch.BATCH_LENGTH, batch.length - KafkaBatch.LOG_OVERHEAD);
    KafkaBatch.putShort(batch, KafkaBatch.ATTRIBUTES, (short) Compression.SNAPPY.code());
    KafkaBatch.recomputeCrc(batch, 0, batch.length, new CRC32C());

    MutableRecordBatch kafka = MemoryRecords.readableRecords(ByteBuffer.wrap(batch)).batches().iterator().next();
    kafka.ensureValid();
    int i = 0;
    for (Record r : kafka) {
      assertKafkaRecord(r, records.get(i), i);
      i++;
    }
    assertReads(new BatchReader().wrapKafka(batch, 0, batch.length), records, 0);
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void kafkasCompressStreamsAndOursReadEachOther(Compression codec) throws Exception {
    byte[] data = KafkaRecords.large(300_000);
    // Ours written, Kafka's read.
    java.io.ByteArrayOutputStream ours = new java.io.ByteArrayOutputStream();
    try (java.io.OutputStream out = codec.compress(ours)) {
      out.write(data);
    }
    org.apache.kafka.common.compress.Compression kafka =
        org.apache.kafka.common.compress.Compression.of(codec.name().toLowerCase()).build();
    try (java.io.InputStream in = kafka.wrapForInput(ByteBuffer.wrap(ours.toByteArray()), (byte) 2,
        org.apache.kafka.common.utils.BufferSupplier.NO_CACHING)) {
      assertThat(in.readAllBytes()).isEqualTo(data);
    }
    // Kafka's written, ours read.
    org.apache.kafka.common.utils.ByteBufferOutputStream theirs = new org.apache.kafka.common.utils.ByteBufferOutputStream(64);
    try (java.io.OutputStream out = kafka.wrapForOutput(theirs, (byte) 2)) {
      out.write(data);
    }
    ByteBuffer written = theirs.buffer().flip();
    byte[] compressed = KafkaRecords.bytes(written);
    try (java.io.InputStream in = codec.decompress(compressed, 0, compressed.length)) {
      assertThat(in.readAllBytes()).isEqualTo(data);
    }
  }
}
