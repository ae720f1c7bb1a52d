package io.brook.client.producer;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.client.Header;
import io.brook.client.TopicPartition;
import io.brook.protocol.batch.BatchReader;
import io.brook.protocol.v1.Durability;
import io.brook.protocol.v1.EncodedRecords;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceStreamRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The producer's own encoding parses as the generated messages, and its records section reads back
 * with the {@link BatchReader} the broker checks it with.
 */
class ProduceRequestEncodingTest {
  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void add(ProducerBatch b, byte[] key, byte[] value, List<Header> headers, long ts) {
    int taken = b.add(key, value, headers, ts, new CompletableFuture<>());
    assertThat(taken).as("never more than send reserved").isLessThanOrEqualTo(RecordEncoding.maxSize(key, value, headers));
  }

  /** key (or "-" for none), value, timestamp and headers of each record, as the broker will read them. */
  private static List<String> read(EncodedRecords encoded) {
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
  void batchesParseAsTheGeneratedMessagesWithEveryKindOfField() throws Exception {
    ProducerBatch a = new ProducerBatch(new TopicPartition("orders", 0), 0, 16, 1);
    long t = 1_700_000_000_000L;
    add(a, utf8("k"), utf8("v"), List.of(), t);
    add(a, null, utf8("no key"), List.of(Header.of("h", "1"), Header.of("h", ""), new Header("\u00e9", utf8("x"))), 0L);
    add(a, new byte[0], new byte[0], List.of(), t - 5);
    add(a, utf8("big"), new byte[300], List.of(), Long.MAX_VALUE);
    a.baseSequence = 2_147_483_000;
    ProducerBatch b = new ProducerBatch(new TopicPartition("payments", 7), 0, 16, 1);
    add(b, null, utf8("only"), List.of(), 3L);
    b.baseSequence = 0;

    ProduceStreamRequest parsed = ProduceStreamRequest.parseFrom(
        ProduceRequestEncoding.encode(42, Durability.DURABILITY_SYNCED, 9_000_000_000L, 3, List.of(a, b)));

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
    assertThat(first.getEncodedRecords().getRecordCount()).isEqualTo(4);
    assertThat(first.getEncodedRecords().getBaseTimestampMs()).isEqualTo(t);
    assertThat(read(first.getEncodedRecords())).containsExactly(
        "k|v|" + t,
        "-|no key|0|h=1|h=|\u00e9=x",
        "||" + (t - 5),
        "big|300 bytes|" + Long.MAX_VALUE);
    ProduceBatch second = request.getBatches(1);
    assertThat(second.getTopic()).isEqualTo("payments");
    assertThat(second.getPartition()).isEqualTo(7);
    assertThat(second.hasBaseSequence()).isTrue();
    assertThat(read(second.getEncodedRecords())).containsExactly("-|only|3");
  }

  @Test
  void aPlainProducerSendsNoIdentityAndNoSequences() throws Exception {
    ProducerBatch a = new ProducerBatch(new TopicPartition("t", 0), 0, 16, 1);
    add(a, null, utf8("v"), List.of(), 1L);
    ProduceRequest parsed = ProduceStreamRequest.parseFrom(
        ProduceRequestEncoding.encode(0, Durability.DURABILITY_WRITTEN, -1, 0, List.of(a))).getRequest();
    assertThat(parsed.hasProducerId()).isFalse();
    assertThat(parsed.getBatches(0).hasBaseSequence()).isFalse();
    assertThat(parsed.getBatches(0).getPartition()).isZero();
    assertThat(parsed.getBatches(0).hasPartition()).isTrue();
  }

  @Test
  void aSplitBatchKeepsEachRecordAndItsTimestamp() throws Exception {
    ProducerBatch a = new ProducerBatch(new TopicPartition("t", 1), 0, 16, 1);
    for (int i = 0; i < 5; i++) {
      add(a, null, utf8("r" + i), List.of(), 1_000 - 100 * i);
    }
    List<ProducerBatch> halves = a.split();
    assertThat(halves.get(0).count()).isEqualTo(2);
    assertThat(halves.get(1).count()).isEqualTo(3);
    assertThat(halves.get(0).bytes() + halves.get(1).bytes()).isEqualTo(a.bytes());
    ProduceRequest parsed = ProduceStreamRequest.parseFrom(
        ProduceRequestEncoding.encode(1, Durability.DURABILITY_WRITTEN, -1, 0, halves)).getRequest();
    assertThat(read(parsed.getBatches(0).getEncodedRecords())).containsExactly("-|r0|1000", "-|r1|900");
    assertThat(read(parsed.getBatches(1).getEncodedRecords())).containsExactly("-|r2|800", "-|r3|700", "-|r4|600");
    assertThat(halves.get(1).records.timestamp(0)).isEqualTo(800L);
  }
}
