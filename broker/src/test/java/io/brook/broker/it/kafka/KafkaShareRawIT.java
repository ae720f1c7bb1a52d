package io.brook.broker.it.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.it.BrokerProcess;
import io.brook.protocol.v1.CreateGroupRequest;
import io.brook.protocol.v1.GroupMode;
import io.brook.protocol.v1.GroupServiceGrpc;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Share-group requests written by hand, for what kafka-clients never does on purpose: a share member
 * whose connection dies while its ShareFetch waits, and session epochs out of order.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KafkaShareRawIT {
  static final short HB_V = 1;
  static final short FETCH_V = 2;
  @TempDir static Path dir;
  static BrokerProcess broker;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
  }

  @AfterAll
  static void stop() throws Exception {
    broker.close();
  }

  static void ackGroup(String name) {
    GroupServiceGrpc.newBlockingStub(broker.channel()).withDeadlineAfter(30, TimeUnit.SECONDS).createGroup(
        CreateGroupRequest.newBuilder().setGroup(name).setMode(GroupMode.GROUP_MODE_ACK)
            .putConfig("auto.offset.reset", "earliest").build());
  }

  static Uuid topicId(String topic) throws Exception {
    try (KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
      MetadataRequestData data = new MetadataRequestData().setTopics(List.of(
          new MetadataRequestData.MetadataRequestTopic().setName(topic)));
      wire.write(KafkaWire.frame(ApiKeys.METADATA, (short) 12, 1, data));
      MetadataResponseData m = (MetadataResponseData) RawKafka.read(wire, ApiKeys.METADATA, (short) 12, 1);
      return m.topics().iterator().next().topicId();
    }
  }

  static ShareGroupHeartbeatResponseData join(KafkaWire wire, String group, String member, String topic, int id)
      throws Exception {
    ShareGroupHeartbeatRequestData hb = new ShareGroupHeartbeatRequestData().setGroupId(group).setMemberId(member)
        .setMemberEpoch(0).setSubscribedTopicNames(List.of(topic));
    wire.write(KafkaWire.frame(ApiKeys.SHARE_GROUP_HEARTBEAT, HB_V, id, hb));
    return (ShareGroupHeartbeatResponseData) RawKafka.read(wire, ApiKeys.SHARE_GROUP_HEARTBEAT, HB_V, id);
  }

  static byte[] fetch(String group, String member, int epoch, Uuid topic, int maxWaitMs, int id) {
    ShareFetchRequestData f = new ShareFetchRequestData().setGroupId(group).setMemberId(member)
        .setShareSessionEpoch(epoch).setMaxWaitMs(maxWaitMs).setMinBytes(1).setMaxBytes(1 << 20).setMaxRecords(100)
        .setBatchSize(100);
    ShareFetchRequestData.FetchTopic t = new ShareFetchRequestData.FetchTopic().setTopicId(topic);
    t.partitions().add(new ShareFetchRequestData.FetchPartition().setPartitionIndex(0));
    f.topics().add(t);
    return KafkaWire.frame(ApiKeys.SHARE_FETCH, FETCH_V, id, f);
  }

  static void produce(String topic, int count) {
    Properties p = new Properties();
    p.put("bootstrap.servers", "127.0.0.1:" + broker.kafkaPort());
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(),
        new StringSerializer())) {
      for (int i = 0; i < count; i++) {
        producer.send(new ProducerRecord<>(topic, 0, null, "v" + i));
      }
    }
  }

  @Test
  void aFetchWaitingWhenItsConnectionDiesLeavesTheRecordsToTheOtherMembers() throws Exception {
    RawKafka.createTopic(broker.kafkaPort(), "dies", 1);
    ackGroup("dies-g");
    Uuid id = topicId("dies");
    KafkaWire a = new KafkaWire(broker.kafkaPort());
    assertThat(join(a, "dies-g", "member-a", "dies", 1).errorCode()).isEqualTo(Errors.NONE.code());
    a.write(fetch("dies-g", "member-a", 0, id, 25_000, 2)); // waits: the topic is empty
    Thread.sleep(300);
    a.close(); // the connection dies while the fetch waits (the member itself stays until its session times out)
    Thread.sleep(300);
    produce("dies", 5);
    try (KafkaWire b = new KafkaWire(broker.kafkaPort())) {
      assertThat(join(b, "dies-g", "member-b", "dies", 1).errorCode()).isEqualTo(Errors.NONE.code());
      b.write(fetch("dies-g", "member-b", 0, id, 5_000, 2));
      ShareFetchResponseData r = (ShareFetchResponseData) RawKafka.read(b, ApiKeys.SHARE_FETCH, FETCH_V, 2);
      assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
      // Within its first fetch, not after member-a's locks run out (30 s): they were never handed to it.
      assertThat(r.responses().iterator().next().partitions().get(0).acquiredRecords()).singleElement().satisfies(ar -> {
        assertThat(ar.firstOffset()).isEqualTo(0);
        assertThat(ar.lastOffset()).isEqualTo(4);
        assertThat(ar.deliveryCount()).isEqualTo((short) 1);
      });
    }
  }

  static ShareFetchRequestData.AcknowledgementBatch accept(long first, long last) {
    return new ShareFetchRequestData.AcknowledgementBatch().setFirstOffset(first).setLastOffset(last)
        .setAcknowledgeTypes(List.of((byte) 1));
  }

  static List<Long> acquired(ShareFetchResponseData r) {
    List<Long> out = new java.util.ArrayList<>();
    r.responses().forEach(t -> t.partitions().forEach(p -> p.acquiredRecords().forEach(a -> {
      for (long o = a.firstOffset(); o <= a.lastOffset(); o++) {
        out.add(o);
      }
    })));
    return out;
  }

  /**
   * kafka-clients sends renewals, and acknowledgements between polls, in a ShareFetch with wait, bytes
   * and records 0: it must acquire nothing (those records would sit locked in the client's buffer).
   * A fetch that asks not to wait still gets the records that are there.
   */
  @Test
  void anAcknowledgeOnlyShareFetchAcquiresNothingAndANoWaitFetchGetsWhatIsThere() throws Exception {
    RawKafka.createTopic(broker.kafkaPort(), "ackonly", 1);
    ackGroup("ackonly-g");
    Uuid id = topicId("ackonly");
    produce("ackonly", 10);
    try (KafkaWire w = new KafkaWire(broker.kafkaPort())) {
      join(w, "ackonly-g", "m", "ackonly", 1);
      ShareFetchRequestData five = new ShareFetchRequestData().setGroupId("ackonly-g").setMemberId("m")
          .setShareSessionEpoch(0).setMaxWaitMs(0).setMinBytes(1).setMaxBytes(1 << 20).setMaxRecords(5).setBatchSize(5);
      ShareFetchRequestData.FetchTopic t = new ShareFetchRequestData.FetchTopic().setTopicId(id);
      t.partitions().add(new ShareFetchRequestData.FetchPartition().setPartitionIndex(0));
      five.topics().add(t);
      w.write(KafkaWire.frame(ApiKeys.SHARE_FETCH, FETCH_V, 2, five));
      assertThat(acquired((ShareFetchResponseData) RawKafka.read(w, ApiKeys.SHARE_FETCH, FETCH_V, 2)))
          .containsExactly(0L, 1L, 2L, 3L, 4L);
      ShareFetchRequestData ackOnly = new ShareFetchRequestData().setGroupId("ackonly-g").setMemberId("m")
          .setShareSessionEpoch(1).setMaxWaitMs(0).setMinBytes(0).setMaxBytes(0).setMaxRecords(0).setBatchSize(0);
      ShareFetchRequestData.FetchTopic at = new ShareFetchRequestData.FetchTopic().setTopicId(id);
      at.partitions().add(new ShareFetchRequestData.FetchPartition().setPartitionIndex(0)
          .setAcknowledgementBatches(List.of(accept(0, 4))));
      ackOnly.topics().add(at);
      w.write(KafkaWire.frame(ApiKeys.SHARE_FETCH, FETCH_V, 3, ackOnly));
      ShareFetchResponseData r = (ShareFetchResponseData) RawKafka.read(w, ApiKeys.SHARE_FETCH, FETCH_V, 3);
      assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
      assertThat(r.responses().iterator().next().partitions().get(0).acknowledgeErrorCode())
          .isEqualTo(Errors.NONE.code());
      assertThat(acquired(r)).as("an acknowledge-only request acquires nothing").isEmpty();
    }
  }

  @Test
  void sessionEpochsOutOfOrderAreRefusedWithKafkasErrors() throws Exception {
    RawKafka.createTopic(broker.kafkaPort(), "epochs", 1);
    ackGroup("epochs-g");
    Uuid id = topicId("epochs");
    try (KafkaWire w = new KafkaWire(broker.kafkaPort())) {
      join(w, "epochs-g", "m", "epochs", 1);
      w.write(fetch("epochs-g", "m", 3, id, 0, 2));
      ShareFetchResponseData noSession = (ShareFetchResponseData) RawKafka.read(w, ApiKeys.SHARE_FETCH, FETCH_V, 2);
      assertThat(noSession.errorCode()).isEqualTo(Errors.SHARE_SESSION_NOT_FOUND.code());
      w.write(fetch("epochs-g", "m", 0, id, 0, 3));
      assertThat(((ShareFetchResponseData) RawKafka.read(w, ApiKeys.SHARE_FETCH, FETCH_V, 3)).errorCode())
          .isEqualTo(Errors.NONE.code());
      w.write(fetch("epochs-g", "m", 2, id, 0, 4));
      ShareFetchResponseData skipped = (ShareFetchResponseData) RawKafka.read(w, ApiKeys.SHARE_FETCH, FETCH_V, 4);
      assertThat(skipped.errorCode()).isEqualTo(Errors.INVALID_SHARE_SESSION_EPOCH.code());
      assertThat(skipped.errorMessage()).contains("not the expected 1");
      w.write(fetch("nobody-g", "m", 0, id, 0, 5));
      assertThat(((ShareFetchResponseData) RawKafka.read(w, ApiKeys.SHARE_FETCH, FETCH_V, 5)).errorCode())
          .isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
    }
  }
}
