package io.brook.client.producer;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.brook.client.Header;
import io.brook.client.TopicPartition;
import io.brook.protocol.v1.Durability;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceStreamRequest;
import io.brook.protocol.v1.Record;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The producer's own encoding is exactly what the generated classes would send. */
class ProduceRequestEncodingTest {
  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void add(ProducerBatch b, byte[] key, byte[] value, List<Header> headers, Long ts) {
    b.add(RecordEncoding.recordSize(key, value, headers, ts), key, value, headers, ts, new CompletableFuture<>());
  }

  @Test
  void batchesParseAsTheGeneratedMessagesWithEveryKindOfField() throws Exception {
    ProducerBatch a = new ProducerBatch(new TopicPartition("orders", 0), 0, 16);
    add(a, utf8("k"), utf8("v"), List.of(), null);
    add(a, null, utf8("no key"), List.of(Header.of("h", "1"), Header.of("h", ""), new Header("", utf8("x"))), 0L);
    add(a, new byte[0], new byte[0], List.of(), -5L);
    add(a, utf8("big"), new byte[300], List.of(), 1_700_000_000_000L);
    a.baseSequence = 2_147_483_000;
    ProducerBatch b = new ProducerBatch(new TopicPartition("payments", 7), 0, 16);
    add(b, null, utf8("only"), List.of(), null);
    b.baseSequence = 0;

    ProduceStreamRequest parsed = ProduceStreamRequest.parseFrom(
        ProduceRequestEncoding.encode(42, Durability.DURABILITY_SYNCED, 9_000_000_000L, 3, List.of(a, b)));

    ProduceStreamRequest expected = ProduceStreamRequest.newBuilder().setCorrelationId(42)
        .setRequest(ProduceRequest.newBuilder().setDurability(Durability.DURABILITY_SYNCED)
            .setProducerId(9_000_000_000L).setProducerEpoch(3)
            .addBatches(ProduceBatch.newBuilder().setTopic("orders").setPartition(0).setBaseSequence(2_147_483_000)
                .addRecords(Record.newBuilder().setKey(ByteString.copyFromUtf8("k"))
                    .setValue(ByteString.copyFromUtf8("v")))
                .addRecords(Record.newBuilder().setValue(ByteString.copyFromUtf8("no key")).setTimestampMs(0)
                    .addHeaders(io.brook.protocol.v1.Header.newBuilder().setKey("h")
                        .setValue(ByteString.copyFromUtf8("1")))
                    .addHeaders(io.brook.protocol.v1.Header.newBuilder().setKey("h"))
                    .addHeaders(io.brook.protocol.v1.Header.newBuilder().setValue(ByteString.copyFromUtf8("x"))))
                .addRecords(Record.newBuilder().setKey(ByteString.EMPTY).setTimestampMs(-5))
                .addRecords(Record.newBuilder().setKey(ByteString.copyFromUtf8("big"))
                    .setValue(ByteString.copyFrom(new byte[300])).setTimestampMs(1_700_000_000_000L)))
            .addBatches(ProduceBatch.newBuilder().setTopic("payments").setPartition(7).setBaseSequence(0)
                .addRecords(Record.newBuilder().setValue(ByteString.copyFromUtf8("only")))))
        .build();
    assertThat(parsed).isEqualTo(expected);
    assertThat(parsed.getRequest().getBatches(1).hasPartition()).as("partition 0 is sent, not left out").isTrue();
    assertThat(parsed.getRequest().getBatches(0).getRecords(2).hasKey()).as("an empty key is a key").isTrue();
    assertThat(parsed.getRequest().getBatches(0).getRecords(0).hasTimestampMs()).isFalse();
  }

  @Test
  void aPlainProducerSendsNoIdentityAndNoSequences() throws Exception {
    ProducerBatch a = new ProducerBatch(new TopicPartition("t", 0), 0, 16);
    add(a, null, utf8("v"), List.of(), null);
    ProduceRequest parsed = ProduceStreamRequest.parseFrom(
        ProduceRequestEncoding.encode(0, Durability.DURABILITY_WRITTEN, -1, 0, List.of(a))).getRequest();
    assertThat(parsed.hasProducerId()).isFalse();
    assertThat(parsed.getBatches(0).hasBaseSequence()).isFalse();
    assertThat(parsed.getBatches(0).getPartition()).isZero();
    assertThat(parsed.getBatches(0).hasPartition()).isTrue();
  }

  @Test
  void aSplitBatchKeepsEachRecordAndItsTimestamp() throws Exception {
    ProducerBatch a = new ProducerBatch(new TopicPartition("t", 1), 0, 16);
    for (int i = 0; i < 5; i++) {
      add(a, null, utf8("r" + i), List.of(), i % 2 == 0 ? (long) i : null);
    }
    List<ProducerBatch> halves = a.split();
    assertThat(halves.get(0).count()).isEqualTo(2);
    assertThat(halves.get(1).count()).isEqualTo(3);
    assertThat(halves.get(0).bytes() + halves.get(1).bytes()).isEqualTo(a.bytes());
    ProduceRequest parsed = ProduceStreamRequest.parseFrom(
        ProduceRequestEncoding.encode(1, Durability.DURABILITY_WRITTEN, -1, 0, halves)).getRequest();
    assertThat(parsed.getBatches(0).getRecordsList()).extracting(r -> r.getValue().toStringUtf8())
        .containsExactly("r0", "r1");
    assertThat(parsed.getBatches(1).getRecordsList()).extracting(r -> r.getValue().toStringUtf8())
        .containsExactly("r2", "r3", "r4");
    assertThat(halves.get(1).records.timestamp(0)).isEqualTo(2L);
    assertThat(halves.get(1).records.timestamp(1)).isEqualTo(EncodedRecords.NO_TIMESTAMP);
  }
}
