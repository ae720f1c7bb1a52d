package io.brook.client.producer;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.client.Header;
import io.brook.client.TopicPartition;
import io.brook.protocol.batch.BatchReader;
import io.brook.protocol.batch.Compression;
import io.brook.protocol.v1.Durability;
import io.brook.protocol.v1.EncodedRecords;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceStreamRequest;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32C;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/**
 * The producer's own encoding parses as the generated messages, and each batch it sends is a valid
 * Kafka record batch v2 as Kafka's own {@link MemoryRecords} reads it (CRC, producer fields, every
 * codec); for a broker older than kafka_batch, the encoded records section reads back with the
 * {@link BatchReader} the broker checks it with.
 */
class ProduceRequestEncodingTest {
  private static final long T = 1_700_000_000_000L;
  private final CRC32C crc = new CRC32C();

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(ByteBuffer b) {
    byte[] bytes = new byte[b.remaining()];
    b.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static void add(ProducerBatch b, byte[] key, byte[] value, List<Header> headers, long ts) {
    int taken = b.add(key, value, headers, ts, new CompletableFuture<>());
    assertThat(taken).as("never more than send reserved").isLessThanOrEqualTo(KafkaRecordSize.max(key, value, headers));
  }

  /** Records of every kind: keys or none, empty and null values, repeated and non-ASCII header names, timestamps. */
  private static ProducerBatch everyKind(Compression compression) {
    ProducerBatch a = new ProducerBatch(new TopicPartition("orders", 0), 0, compression, 1);
    add(a, utf8("k"), utf8("v"), List.of(), T);
    add(a, null, utf8("no key"), List.of(Header.of("h", "1"), Header.of("h", ""), new Header("\u00e9", utf8("x"))), 0L);
    add(a, new byte[0], null, List.of(), T - 5);
    add(a, utf8("big"), "z".repeat(3000).getBytes(StandardCharsets.UTF_8), List.of(), Long.MAX_VALUE);
    return a;
  }

  /** key (or "-" for none), value, timestamp and headers of each record, as Kafka's consumer reads them. */
  private static List<String> readWithKafka(byte[] batch, Compression compression, long producerId, short epoch,
      int sequence) {
    MemoryRecords records = MemoryRecords.readableRecords(ByteBuffer.wrap(batch));
    List<String> out = new ArrayList<>();
    int batches = 0;
    for (MutableRecordBatch b : records.batches()) {
      batches++;
      b.ensureValid(); // magic 2 and the CRC-32C
      assertThat(b.magic()).isEqualTo(RecordBatch.MAGIC_VALUE_V2);
      assertThat((int) b.compressionType().id).isEqualTo(compression.code());
      assertThat(b.producerId()).isEqualTo(producerId);
      assertThat(b.producerEpoch()).isEqualTo(epoch);
      assertThat(b.baseSequence()).isEqualTo(sequence);
      assertThat(b.isTransactional()).isFalse();
      assertThat(b.sizeInBytes()).isEqualTo(batch.length);
      for (Record r : b) {
        StringBuilder s = new StringBuilder(r.hasKey() ? text(r.key()) : "-").append('|')
            .append(r.valueSize() > 20 ? r.valueSize() + " bytes" : text(r.value())).append('|').append(r.timestamp());
        for (org.apache.kafka.common.header.Header h : r.headers()) {
          s.append('|').append(h.key()).append('=').append(new String(h.value(), StandardCharsets.UTF_8));
        }
        out.add(s.toString());
      }
    }
    assertThat(batches).isEqualTo(1);
    return out;
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void eachBatchIsAKafkaBatchThatKafkasOwnReaderReadsInEveryCodec(Compression compression) throws Exception {
    ProducerBatch a = everyKind(compression);
    a.baseSequence = 2_147_483_000;
    ProducerBatch b = new ProducerBatch(new TopicPartition("payments", 7), 0, compression, 1);
    add(b, null, utf8("only"), List.of(), 3L);
    b.baseSequence = 0;

    ProduceStreamRequest parsed = ProduceStreamRequest.parseFrom(
        ProduceRequestEncoding.encode(42, Durability.DURABILITY_SYNCED, 9_000_000_000L, 3, List.of(a, b), false, crc));

    assertThat(parsed.getCorrelationId()).isEqualTo(42);
    ProduceRequest request = parsed.getRequest();
    assertThat(request.getDurability()).isEqualTo(Durability.DURABILITY_SYNCED);
    assertThat(request.getProducerId()).isEqualTo(9_000_000_000L);
    assertThat(request.getProducerEpoch()).isEqualTo(3);
    ProduceBatch first = request.getBatches(0);
    assertThat(first.getTopic()).isEqualTo("orders");
    assertThat(first.hasPartition()).as("partition 0 is sent, not left out").isTrue();
    assertThat(first.getBaseSequence()).isEqualTo(2_147_483_000);
    assertThat(first.getRecordsCount()).isZero();
    assertThat(first.hasEncodedRecords()).isFalse();
    assertThat(readWithKafka(first.getKafkaBatch().toByteArray(), compression, 9_000_000_000L, (short) 3,
        2_147_483_000)).containsExactly(
        "k|v|" + T,
        "-|no key|0|h=1|h=|\u00e9=x",
        "||" + (T - 5),
        "big|3000 bytes|" + Long.MAX_VALUE);
    assertThat(a.wireBytes()).isEqualTo(first.getKafkaBatch().size());
    if (compression != Compression.NONE) {
      assertThat(a.wireBytes()).as("compressed as sent, the buffer counts records before").isLessThan(a.bytes());
    }
    ProduceBatch second = request.getBatches(1);
    assertThat(second.getTopic()).isEqualTo("payments");
    assertThat(second.getPartition()).isEqualTo(7);
    assertThat(second.hasBaseSequence()).isTrue();
    assertThat(readWithKafka(second.getKafkaBatch().toByteArray(), compression, 9_000_000_000L, (short) 3, 0))
        .containsExactly("-|only|3");
  }

  @Test
  void aResendCarriesThatAttemptsProducerFieldsWithACrcThatHolds() throws Exception {
    ProducerBatch a = everyKind(Compression.ZSTD);
    a.baseSequence = 10;
    ProduceRequestEncoding.encode(1, Durability.DURABILITY_WRITTEN, 5, 0, List.of(a), false, crc);
    a.baseSequence = 0; // a new epoch renumbers it
    ProduceBatch again = ProduceStreamRequest.parseFrom(
        ProduceRequestEncoding.encode(2, Durability.DURABILITY_WRITTEN, 5, 1, List.of(a), false, crc))
        .getRequest().getBatches(0);
    assertThat(readWithKafka(again.getKafkaBatch().toByteArray(), Compression.ZSTD, 5, (short) 1, 0)).hasSize(4);
  }

  @Test
  void aPlainProducerSendsNoIdentityAndNoSequences() throws Exception {
    ProducerBatch a = new ProducerBatch(new TopicPartition("t", 0), 0, Compression.NONE, 1);
    add(a, null, utf8("v"), List.of(), 1L);
    ProduceRequest parsed = ProduceStreamRequest.parseFrom(
        ProduceRequestEncoding.encode(0, Durability.DURABILITY_WRITTEN, -1, 0, List.of(a), false, crc)).getRequest();
    assertThat(parsed.hasProducerId()).isFalse();
    assertThat(parsed.getBatches(0).hasBaseSequence()).isFalse();
    assertThat(parsed.getBatches(0).getPartition()).isZero();
    assertThat(parsed.getBatches(0).hasPartition()).isTrue();
    assertThat(readWithKafka(parsed.getBatches(0).getKafkaBatch().toByteArray(), Compression.NONE, -1, (short) -1, -1))
        .containsExactly("-|v|1");
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void aSplitBatchKeepsEachRecordItsHeadersAndItsTimestamp(Compression compression) throws Exception {
    ProducerBatch a = new ProducerBatch(new TopicPartition("t", 1), 0, compression, 1);
    for (int i = 0; i < 5; i++) {
      add(a, i == 3 ? utf8("key") : null, utf8("r" + i), i == 2 ? List.of(Header.of("n", "v")) : List.of(),
          1_000 - 100 * i);
    }
    ProduceRequestEncoding.encode(1, Durability.DURABILITY_WRITTEN, -1, 0, List.of(a), false, crc); // sent once
    List<ProducerBatch> halves = a.split();
    assertThat(halves.get(0).count()).isEqualTo(2);
    assertThat(halves.get(1).count()).isEqualTo(3);
    assertThat(halves.get(0).bytes() + halves.get(1).bytes()).isEqualTo(a.bytes());
    ProduceRequest parsed = ProduceStreamRequest.parseFrom(
        ProduceRequestEncoding.encode(2, Durability.DURABILITY_WRITTEN, -1, 0, halves, false, crc)).getRequest();
    assertThat(readWithKafka(parsed.getBatches(0).getKafkaBatch().toByteArray(), compression, -1, (short) -1, -1))
        .containsExactly("-|r0|1000", "-|r1|900");
    assertThat(readWithKafka(parsed.getBatches(1).getKafkaBatch().toByteArray(), compression, -1, (short) -1, -1))
        .containsExactly("-|r2|800|n=v", "key|r3|700", "-|r4|600");
  }

  /** key (or "-" for none), value, timestamp and headers of each record, as an older broker reads them. */
  private static List<String> readEncoded(EncodedRecords encoded) {
    BatchReader in = new BatchReader();
    byte[] section = encoded.getRecords().toByteArray();
    in.wrapRecords(section, 0, section.length, encoded.getRecordCount(), encoded.getBaseTimestampMs());
    List<String> out = new ArrayList<>();
    while (in.next()) {
      StringBuilder s = new StringBuilder(in.hasKey() ? new String(in.copyKey(), StandardCharsets.UTF_8) : "-")
          .append('|').append(in.valueLength() > 20 ? in.valueLength() + " bytes" : new String(in.copyValue(),
              StandardCharsets.UTF_8)).append('|').append(in.timestamp());
      for (int h = 0; h < in.headerCount(); h++) {
        s.append('|').append(new String(in.copyHeaderName(h), StandardCharsets.UTF_8)).append('=')
            .append(new String(in.copyHeaderValue(h), StandardCharsets.UTF_8));
      }
      out.add(s.toString());
    }
    return out;
  }

  @Test
  void forABrokerOlderThanKafkaBatchTheSameRecordsGoAsEncodedRecords() throws Exception {
    ProducerBatch a = everyKind(Compression.NONE);
    a.baseSequence = 7;
    ProduceRequestEncoding.encode(1, Durability.DURABILITY_WRITTEN, 5, 0, List.of(a), false, crc);
    ProduceBatch legacy = ProduceStreamRequest.parseFrom(
        ProduceRequestEncoding.encode(2, Durability.DURABILITY_WRITTEN, 5, 0, List.of(a), true, crc))
        .getRequest().getBatches(0);
    assertThat(legacy.getKafkaBatch().isEmpty()).isTrue();
    assertThat(legacy.getBaseSequence()).isEqualTo(7);
    assertThat(legacy.getEncodedRecords().getRecordCount()).isEqualTo(4);
    assertThat(readEncoded(legacy.getEncodedRecords())).containsExactly(
        "k|v|" + T,
        "-|no key|0|h=1|h=|\u00e9=x",
        "||" + (T - 5),
        "big|3000 bytes|" + Long.MAX_VALUE);
    assertThat(a.sentAsKafka).isFalse();
    assertThat(a.wireBytes()).isEqualTo(legacy.getEncodedRecords().getRecords().size());
  }
}
