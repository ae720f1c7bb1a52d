package io.brook.broker.storage;

import static io.brook.broker.storage.KafkaBatches.rec;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.records.EncodedRecords;
import io.brook.broker.records.KafkaRecords;
import io.brook.broker.records.LogRecord;
import io.brook.broker.records.ProducerStamp;
import io.brook.broker.records.RecordHeader;
import io.brook.broker.storage.chronicle.ChronicleLog;
import io.brook.protocol.batch.BatchFormat;
import io.brook.protocol.batch.BatchReader;
import io.brook.protocol.batch.KafkaBatch;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import java.util.stream.Stream;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every append is stored in version 2 (D37): listed and Brook-encoded records encoded once into an
 * uncompressed Kafka batch, a Kafka batch as it came with only its offset (and, on a LogAppendTime
 * topic, its timestamp fields and CRC) changed. Each reads back the same on both engines, as
 * records, as Kafka batches kafka-clients accepts, and as version 1 for old clients.
 */
class StoredFormsTest {
  static final long T0 = 1_763_800_000_000L;
  @TempDir Path dir;
  final ManualClock clock = new ManualClock(T0);
  final List<PartitionLog> opened = new ArrayList<>();
  final BatchReader in = new BatchReader();

  static Stream<String> engines() {
    return Stream.of("chronicle", "memory");
  }

  PartitionLog open(String engine) {
    LogOptions options = new LogOptions(SegmentRoll.HOUR, clock, true);
    PartitionLog log = engine.equals("chronicle") ? ChronicleLog.open(dir.resolve("p"), options) : new MemoryLog(options);
    opened.add(log);
    return log;
  }

  @AfterEach
  void closeAll() {
    opened.forEach(PartitionLog::close);
  }

  static LogRecord listed(String key, String value, long ts, RecordHeader... headers) {
    return LogRecord.of(key == null ? null : key.getBytes(StandardCharsets.UTF_8),
        value.getBytes(StandardCharsets.UTF_8), ts, List.of(headers));
  }

  /** A Kafka batch validated as the topic layer would (the fields it computes, taken from kafka-clients). */
  static KafkaRecords kafka(byte[] request, int at, int length, int count, long maxTimestamp, ProducerStamp p) {
    return new KafkaRecords(request, at, length, count, maxTimestamp, 0, p);
  }

  @ParameterizedTest
  @MethodSource("engines")
  void everyFormIsStoredInVersion2AndReadsBackTheSameEveryWay(String engine) {
    PartitionLog log = open(engine);
    RecordHeader h = RecordHeader.of("h", "1".getBytes(StandardCharsets.UTF_8));
    // 1. listed: a record without timestamp gets the append time
    log.append(AppendBatch.of(List.of(listed("k0", "listed-0", T0 - 7, h), listed(null, "listed-1", -1)), T0));
    // 2. Brook's encoded section (version 1 records), as its Java producer sends it
    ByteWriter v1 = new ByteWriter(256);
    List<LogRecord> section = List.of(listed("k2", "encoded-2", T0 + 3, h), listed("k3", "encoded-3", T0 + 1));
    Version1Encoder.encode(v1, AppendBatch.of(section, T0), 0, Long.MIN_VALUE, 0, new CRC32C());
    byte[] v1Bytes = Arrays.copyOf(v1.array(), v1.position());
    int from = BatchFormat.headerSize(v1Bytes, 0);
    log.append(AppendBatch.encoded(new EncodedRecords(v1Bytes, from, v1Bytes.length - from, 2, T0 + 3, T0 + 3, 0),
        T0 + 1, false, new ProducerStamp(5, (short) 1, 0)));
    // 3. Kafka batches of every codec, inside a larger array as a parsed request holds them
    long offset = 4;
    List<byte[]> sent = new ArrayList<>();
    for (String codec : List.of("none", "gzip", "snappy", "lz4", "zstd")) {
      byte[] k = KafkaBatches.batch(KafkaBatches.codec(codec), rec(T0 + 50, "k-" + codec, "kafka-" + codec),
          rec(T0 + 40, null, null));
      byte[] request = new byte[k.length + 10];
      System.arraycopy(k, 0, request, 5, k.length);
      log.append(AppendBatch.kafka(kafka(request, 5, k.length, 2, T0 + 50, ProducerStamp.NONE), T0 + 2, false));
      assertThat(Arrays.copyOfRange(request, 5, 5 + k.length)).as("the request is never written").isEqualTo(k);
      sent.add(k);
      offset += 2;
    }
    assertThat(log.endOffset()).isEqualTo(offset);

    List<byte[]> stored = log.readBatches(0, 1000, 1 << 20, true).batches();
    assertThat(stored).hasSize(7).allSatisfy(b -> {
      assertThat(BatchFormat.version(b, 0)).isEqualTo(BatchFormat.VERSION_2);
      assertThat(BatchCodec.checksumMatches(b, 0, b.length, new CRC32C())).isTrue();
    });
    assertThat(BatchCodec.producer(stored.get(1), 0)).isEqualTo(new ProducerStamp(5, (short) 1, 0));
    for (int i = 0; i < sent.size(); i++) { // a Kafka batch is stored as it came, but for its base offset
      byte[] s = stored.get(2 + i);
      byte[] kafkaPart = Arrays.copyOfRange(s, BatchFormat.V2_PREFIX_SIZE, s.length);
      assertThat(KafkaBatch.baseOffset(kafkaPart, 0)).isEqualTo(4 + 2L * i);
      KafkaBatch.setBaseOffset(kafkaPart, 0, 0);
      KafkaBatch.setPartitionLeaderEpoch(kafkaPart, 0, KafkaBatch.intAt(sent.get(i), KafkaBatch.PARTITION_LEADER_EPOCH));
      assertThat(kafkaPart).isEqualTo(sent.get(i));
    }

    List<String> expected = List.of("listed-0", "listed-1", "encoded-2", "encoded-3", "kafka-none", "", "kafka-gzip",
        "", "kafka-snappy", "", "kafka-lz4", "", "kafka-zstd", "");
    List<LogRecord> records = log.read(0, 1000, 1 << 20).records();
    assertThat(records).extracting(r -> new String(r.value(), StandardCharsets.UTF_8)).isEqualTo(expected);
    assertThat(records.get(1).timestamp()).isEqualTo(T0);
    assertThat(records.get(0).headers()).extracting(RecordHeader::name).containsExactly("h");
    assertThat(log.offsetForTimestamp(T0 + 45)).isEqualTo(4);

    // As Kafka batches, read by kafka-clients: offsets, keys, values, producer fields
    List<Long> offsets = new ArrayList<>();
    List<String> values = new ArrayList<>();
    for (byte[] b : stored) {
      MutableRecordBatch k = KafkaBatches.readStored(BatchConversion.toVersion2(b, in));
      assertThat(k.timestampType()).isEqualTo(TimestampType.CREATE_TIME);
      for (Record r : KafkaBatches.records(k)) {
        offsets.add(r.offset());
        values.add(r.hasValue() ? KafkaBatches.string(r.value()) : "");
      }
    }
    assertThat(offsets).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L, 12L, 13L);
    assertThat(values).isEqualTo(expected);
    assertThat(KafkaBatches.readStored(BatchConversion.toVersion2(stored.get(1), in)).producerId()).isEqualTo(5);

    // As version 1, for a client that reads only it
    List<String> asV1 = new ArrayList<>();
    for (byte[] b : stored) {
      byte[] old = BatchConversion.toVersion1(b, in);
      assertThat(BatchFormat.version(old, 0)).isEqualTo(BatchFormat.VERSION);
      assertThat(BatchCodec.checksumMatches(old, 0, old.length, new CRC32C())).isTrue();
      assertThat(BatchCodec.header(old, 0, old.length)).isEqualTo(BatchCodec.header(b, 0, b.length)
          .withStoredLength(old.length));
      in.wrap(old, 0, old.length);
      while (in.next()) {
        asV1.add(new String(in.copyValue(), StandardCharsets.UTF_8));
      }
    }
    assertThat(asV1).isEqualTo(expected);
    assertThat(BatchCodec.producer(BatchConversion.toVersion1(stored.get(1), in), 0))
        .isEqualTo(new ProducerStamp(5, (short) 1, 0));
  }

  @ParameterizedTest
  @MethodSource("engines")
  void aLogAppendTimeTopicRewritesAKafkaBatchsMaxTimestampTypeAndCrcAsKafkaDoes(String engine) {
    PartitionLog log = open(engine);
    byte[] k = KafkaBatches.idempotent(KafkaBatches.codec("snappy"), 77, (short) 4, 10, rec(T0 - 100, "a", "x"),
        rec(T0 - 50, "b", "y"));
    log.append(AppendBatch.kafka(kafka(k, 0, k.length, 2, T0 - 50, new ProducerStamp(77, (short) 4, 10)), T0 + 9,
        true));
    byte[] stored = log.readBatches(0, 10, 1 << 20, true).batches().get(0);
    assertThat(BatchCodec.checksumMatches(stored, 0, stored.length, new CRC32C())).isTrue();
    MutableRecordBatch b = KafkaBatches.readStored(BatchConversion.toVersion2(stored, in));
    assertThat(b.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
    assertThat(b.maxTimestamp()).isEqualTo(T0 + 9);
    assertThat(b.producerId()).isEqualTo(77);
    assertThat(b.producerEpoch()).isEqualTo((short) 4);
    assertThat(b.baseSequence()).isEqualTo(10);
    assertThat(KafkaBatches.records(b)).extracting(Record::timestamp).containsOnly(T0 + 9);
    assertThat(log.read(0, 10, 1 << 20).records()).extracting(LogRecord::timestamp).containsOnly(T0 + 9);
    assertThat(log.offsetForTimestamp(T0 + 9)).isZero();
    assertThat(log.offsetForTimestamp(T0 + 10)).isEqualTo(2);
  }

  @ParameterizedTest
  @MethodSource("engines")
  void aProducersWrongMaxTimestampIsCorrectedAsKafkaDoes(String engine) {
    PartitionLog log = open(engine);
    byte[] k = KafkaBatches.batch(KafkaBatches.codec("none"), rec(T0 + 5, "a", "x"));
    byte[] lying = k.clone();
    KafkaBatch.putLong(lying, KafkaBatch.MAX_TIMESTAMP, T0 + 999);
    KafkaBatch.recomputeCrc(lying, 0, lying.length, new CRC32C());
    log.append(AppendBatch.kafka(kafka(lying, 0, lying.length, 1, T0 + 5, ProducerStamp.NONE), T0, false));
    byte[] stored = log.readBatches(0, 10, 1 << 20, true).batches().get(0);
    MutableRecordBatch b = KafkaBatches.readStored(BatchConversion.toVersion2(stored, in));
    assertThat(b.maxTimestamp()).isEqualTo(T0 + 5);
    assertThat(log.offsetForTimestamp(T0 + 6)).isEqualTo(1); // the time index was not misled
  }
}
