package io.brook.broker.kafka.apis;

import static io.brook.broker.storage.KafkaBatches.batch;
import static io.brook.broker.storage.KafkaBatches.codec;
import static io.brook.broker.storage.KafkaBatches.rec;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.storage.KafkaBatches;
import io.brook.protocol.batch.KafkaBatch;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Produce and Fetch handlers on a real core, every request and answer through Kafka's codec. */
class ProduceFetchApisTest {
  static final long T = 1_700_000_000_000L;
  @TempDir Path dir;
  KafkaCore core;

  @BeforeEach
  void open() {
    core = new KafkaCore(dir);
    core.topics.create("t", 2, Map.of());
  }

  @AfterEach
  void close() {
    core.close();
  }

  private static ProduceRequestData produce(short acks, String topic, Uuid id, int partition, byte[]... batches) {
    ByteBuffer all = ByteBuffer.allocate(Arrays.stream(batches).mapToInt(b -> b.length).sum());
    for (byte[] b : batches) {
      all.put(b);
    }
    ProduceRequestData r = new ProduceRequestData().setAcks(acks).setTimeoutMs(5000);
    ProduceRequestData.TopicProduceData t = new ProduceRequestData.TopicProduceData().setName(topic).setTopicId(id);
    t.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(partition)
        .setRecords(MemoryRecords.readableRecords(all.flip())));
    r.topicData().add(t);
    return r;
  }

  private PartitionProduceResponse produced(short version, ProduceRequestData request) throws Exception {
    ProduceResponseData r = core.call(ApiKeys.PRODUCE, version, request);
    return r.responses().iterator().next().partitionResponses().get(0);
  }

  private FetchResponseData fetch(short version, String topic, Uuid id, int partition, long offset, int partitionMax)
      throws Exception {
    FetchRequestData r = new FetchRequestData().setMaxWaitMs(0).setMinBytes(1).setMaxBytes(1 << 20)
        .setSessionEpoch(-1);
    FetchRequestData.FetchTopic t = new FetchRequestData.FetchTopic().setTopic(topic).setTopicId(id);
    t.partitions().add(new FetchRequestData.FetchPartition().setPartition(partition).setFetchOffset(offset)
        .setPartitionMaxBytes(partitionMax));
    r.topics().add(t);
    return core.call(ApiKeys.FETCH, version, r);
  }

  private Uuid id(String topic) {
    return TopicIds.toKafka(core.admin.idOf(topic));
  }

  @Test
  void aBatchIsStoredAsSentAndAFetchInsideItReturnsTheWholeBatch() throws Exception {
    byte[] sent = batch(codec("gzip"), rec(T, "a", "1"), rec(T + 1, "b", "2"), rec(T + 2, "c", "3"));
    PartitionProduceResponse p = produced((short) 13, produce((short) -1, null, id("t"), 1, sent));
    assertThat(p.errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(p.baseOffset()).isZero();
    PartitionData f = fetch((short) 18, null, id("t"), 1, 1, 1 << 20).responses().get(0).partitions().get(0);
    assertThat(f.errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(f.highWatermark()).isEqualTo(3);
    assertThat(f.lastStableOffset()).as("no transactions: the high watermark").isEqualTo(3);
    assertThat(f.abortedTransactions()).isEmpty();
    byte[] back = KafkaBatches.toArray((MemoryRecords) f.records());
    assertThat(KafkaBatch.baseOffset(back, 0)).as("the whole batch holding offset 1").isZero();
    assertThat(Arrays.copyOfRange(back, KafkaBatch.ATTRIBUTES, back.length))
        .as("the producer's bytes, compressed, from the CRC'd attributes on").isEqualTo(
            Arrays.copyOfRange(sent, KafkaBatch.ATTRIBUTES, sent.length));
  }

  @Test
  void aFailedPartitionAnswersMinusOneForWhatIsNotKnown() throws Exception {
    produced((short) 9, produce((short) 1, "t", Uuid.ZERO_UUID, 0, batch(codec("none"), rec(T, "a", "1"))));
    PartitionData f = fetch((short) 12, "t", Uuid.ZERO_UUID, 0, 5, 1 << 20).responses().get(0).partitions().get(0);
    assertThat(f.errorCode()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE.code());
    assertThat(List.of(f.highWatermark(), f.lastStableOffset(), f.logStartOffset())).containsOnly(-1L);
    PartitionData unknown = fetch((short) 13, null, Uuid.randomUuid(), 0, 0, 1 << 20).responses().get(0)
        .partitions().get(0);
    assertThat(unknown.errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());
  }

  @Test
  void aPartitionsSecondBatchStaysBehindItsPartitionMaxButTheFirstAlwaysComes() throws Exception {
    byte[] big = batch(codec("none"), rec(T, "a", "x".repeat(3000)));
    produced((short) 9, produce((short) 1, "t", Uuid.ZERO_UUID, 0, big));
    produced((short) 9, produce((short) 1, "t", Uuid.ZERO_UUID, 0, big));
    PartitionData f = fetch((short) 12, "t", Uuid.ZERO_UUID, 0, 0, 100).responses().get(0).partitions().get(0);
    byte[] back = KafkaBatches.toArray((MemoryRecords) f.records());
    assertThat(back.length).as("one batch, over partition_max_bytes: the answer's first").isEqualTo(big.length);
  }

  @Test
  void twoBatchesInOnePartitionOrATransactionalProduceAreRefusedAndAcksZeroGetsNoAnswer() throws Exception {
    byte[] one = batch(codec("none"), rec(T, "a", "1"));
    PartitionProduceResponse two = produced((short) 9, produce((short) 1, "t", Uuid.ZERO_UUID, 0, one, one));
    assertThat(two.errorCode()).isEqualTo(Errors.CORRUPT_MESSAGE.code());
    assertThat(two.errorMessage()).contains("exactly one record batch per partition");
    ProduceRequestData txn = produce((short) -1, "t", Uuid.ZERO_UUID, 0, one).setTransactionalId("tx");
    assertThat(produced((short) 9, txn).errorCode()).isEqualTo(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code());
    Object none = core.api(ApiKeys.PRODUCE).handle(new KafkaRequest((short) 9, 1, "c",
        produce((short) 0, "t", Uuid.ZERO_UUID, 0, one), KafkaCore.NODE, new InetSocketAddress("127.0.0.1", 1))).get();
    assertThat(none).as("acks=0: no answer").isNull();
    assertThat(fetch((short) 12, "t", Uuid.ZERO_UUID, 0, 0, 1 << 20).responses().get(0).partitions().get(0)
        .highWatermark()).as("yet written").isEqualTo(1);
  }
}
