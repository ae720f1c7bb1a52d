package io.brook.broker.it.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.it.BrokerProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The KIP-848 group's offset checks written by hand against the real broker process, each answer as
 * Kafka 4.3.1 gives it (checked on one with perf/kafka.sh): an OffsetFetch v9+ that names a member is
 * checked against the member's epoch, an OffsetCommit below v9 from a KIP-848 member is refused, and
 * a regex that matches {@code __consumer_offsets} is assigned its partition, which reads as empty.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KafkaGroupConsumerRawIT {
  @TempDir static Path dir;
  static BrokerProcess broker;
  static int correlation;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"), "--set", "group.initial.rebalance.delay.ms=0");
    RawKafka.createTopic(broker.kafkaPort(), "t", 1);
  }

  @AfterAll
  static void stop() throws Exception {
    broker.close();
  }

  @Test
  void anOffsetFetchNamingAKip848MemberIsCheckedAgainstItsEpoch() throws Exception {
    try (KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
      String member = Uuid.randomUuid().toString();
      int epoch = joinByName(wire, "f848", member);

      assertThat(offsetFetch(wire, "f848", member, epoch)).isEqualTo(Errors.NONE);
      assertThat(offsetFetch(wire, "f848", member, epoch + 1)).isEqualTo(Errors.STALE_MEMBER_EPOCH);
      assertThat(offsetFetch(wire, "f848", member, epoch - 1)).isEqualTo(Errors.STALE_MEMBER_EPOCH);
      assertThat(offsetFetch(wire, "f848", member, -1)).as("a member id names a member").isEqualTo(Errors.STALE_MEMBER_EPOCH);
      assertThat(offsetFetch(wire, "f848", "ghost", epoch)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
      assertThat(offsetFetch(wire, "f848", "", -1)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
      // Kafka 4.3.1 fails this one with UNKNOWN_SERVER_ERROR; Brook says which member is unknown.
      assertThat(offsetFetch(wire, "f848", null, epoch)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
      assertThat(offsetFetch(wire, "f848", null, -1)).as("no member: Admin, an assign() consumer").isEqualTo(Errors.NONE);
      assertThat(offsetFetch(wire, "no-such-group", member, epoch)).as("nobody to check").isEqualTo(Errors.NONE);

      // With an offset the group outlives its last member (one without goes at once, D54: nobody to check).
      assertThat(offsetCommit(wire, (short) 9, "f848", member, epoch)).isEqualTo(Errors.NONE);
      heartbeat(wire, new ConsumerGroupHeartbeatRequestData().setGroupId("f848").setMemberId(member).setMemberEpoch(-1));
      assertThat(offsetFetch(wire, "f848", member, epoch)).as("it left").isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }
  }

  @Test
  void aClassicGroupChecksNoMemberOnOffsetFetch() throws Exception {
    try (KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
      JoinGroupResponseData joined = KafkaGroupClassicRawIT.joinNew(wire, (short) 9, "fclassic");
      assertThat(offsetFetch(wire, "fclassic", joined.memberId(), joined.generationId())).isEqualTo(Errors.NONE);
      assertThat(offsetFetch(wire, "fclassic", "ghost", 99)).isEqualTo(Errors.NONE);
    }
  }

  @Test
  void anOffsetCommitBelowV9FromAKip848MemberIsUnsupportedVersionAndWritesNothing() throws Exception {
    try (KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
      String member = Uuid.randomUuid().toString();
      int epoch = joinByName(wire, "c848", member);

      assertThat(offsetCommit(wire, (short) 8, "c848", member, epoch)).isEqualTo(Errors.UNSUPPORTED_VERSION);
      assertThat(offsetCommit(wire, (short) 2, "c848", member, epoch)).isEqualTo(Errors.UNSUPPORTED_VERSION);
      // As Kafka: the version is checked before the epoch, after the member is found.
      assertThat(offsetCommit(wire, (short) 8, "c848", member, epoch + 5)).isEqualTo(Errors.UNSUPPORTED_VERSION);
      assertThat(offsetCommit(wire, (short) 8, "c848", "ghost", epoch)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
      assertThat(committed(wire, "c848")).as("nothing was written").isEqualTo(-1);

      assertThat(offsetCommit(wire, (short) 9, "c848", member, epoch)).isEqualTo(Errors.NONE);
      assertThat(committed(wire, "c848")).isEqualTo(0);
      assertThat(offsetCommit(wire, (short) 9, "c848", member, epoch + 5)).isEqualTo(Errors.STALE_MEMBER_EPOCH);
    }
  }

  @Test
  void aClassicMemberStillCommitsBelowV9() throws Exception {
    try (KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
      JoinGroupResponseData joined = KafkaGroupClassicRawIT.joinNew(wire, (short) 9, "cclassic");
      KafkaGroupClassicRawIT.sync(wire, "cclassic", joined.generationId(), joined.memberId(), new byte[0]);
      assertThat(offsetCommit(wire, (short) 7, "cclassic", joined.memberId(), joined.generationId()))
          .isEqualTo(Errors.NONE);
    }
  }

  @Test
  void aRegexMatchingConsumerOffsetsIsAssignedItsPartitionWhichReadsAsEmpty() throws Exception {
    try (KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
      MetadataResponseData.MetadataResponseTopic offsets = metadata(wire, "__consumer_offsets");
      assertThat(offsets.isInternal()).isTrue();
      String member = Uuid.randomUuid().toString();
      ConsumerGroupHeartbeatResponseData joined = heartbeat(wire, new ConsumerGroupHeartbeatRequestData()
          .setGroupId("regex848").setMemberId(member).setMemberEpoch(0).setRebalanceTimeoutMs(30_000)
          .setSubscribedTopicNames(List.of()).setSubscribedTopicRegex("__consumer_offs.*").setTopicPartitions(List.of()));
      Assigned assigned = assignedAfter(wire, "regex848", member, joined);
      assertThat(assigned.partitions()).singleElement().satisfies(tp -> {
        assertThat(tp.topicId()).isEqualTo(offsets.topicId());
        assertThat(tp.partitions()).containsExactly(0);
      });

      // Its consumer looks its offsets up and fetches it: an empty log, as Kafka's partition 0 of it can be.
      for (long at : new long[] {-2, -1}) {
        ListOffsetsRequestData lo = new ListOffsetsRequestData().setReplicaId(-1);
        lo.topics().add(new ListOffsetsRequestData.ListOffsetsTopic().setName("__consumer_offsets").setPartitions(List.of(
            new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(0).setTimestamp(at))));
        ListOffsetsResponseData.ListOffsetsPartitionResponse p = ((ListOffsetsResponseData) call(wire,
            ApiKeys.LIST_OFFSETS, (short) 7, lo)).topics().get(0).partitions().get(0);
        assertThat(Errors.forCode(p.errorCode())).isEqualTo(Errors.NONE);
        assertThat(p.offset()).isEqualTo(0);
      }
      for (short v : new short[] {12, 13}) { // by name, then by id
        FetchRequestData f = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(10).setMinBytes(1).setMaxBytes(1 << 20)
            .setSessionEpoch(-1);
        f.topics().add(new FetchRequestData.FetchTopic().setTopic("__consumer_offsets").setTopicId(offsets.topicId())
            .setPartitions(List.of(new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0)
                .setPartitionMaxBytes(1 << 20).setLogStartOffset(-1).setCurrentLeaderEpoch(-1))));
        FetchResponseData.PartitionData p = ((FetchResponseData) call(wire, ApiKeys.FETCH, v, f)).responses().get(0)
            .partitions().get(0);
        assertThat(Errors.forCode(p.errorCode())).as("fetch v" + v).isEqualTo(Errors.NONE);
        assertThat(p.highWatermark()).isEqualTo(0);
        assertThat(p.records() == null ? 0 : p.records().sizeInBytes()).isZero();
      }

      // Its consumer commits its position there and asks its committed offsets, by the topic's id (v10) as
      // kafka-clients 4.3 does: taken and -1, as on Kafka (a retriable topic-id error would stall its commits).
      int epoch = assigned.epoch();
      OffsetCommitRequestData commit = new OffsetCommitRequestData().setGroupId("regex848").setMemberId(member)
          .setGenerationIdOrMemberEpoch(epoch);
      commit.topics().add(new OffsetCommitRequestData.OffsetCommitRequestTopic().setTopicId(offsets.topicId())
          .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(0)
              .setCommittedOffset(0))));
      OffsetCommitResponseData committed = (OffsetCommitResponseData) call(wire, ApiKeys.OFFSET_COMMIT, (short) 10,
          commit);
      assertThat(Errors.forCode(committed.topics().get(0).partitions().get(0).errorCode())).isEqualTo(Errors.NONE);
      OffsetFetchRequestData ask = new OffsetFetchRequestData();
      ask.groups().add(new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId("regex848").setMemberId(member)
          .setMemberEpoch(epoch).setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopics()
              .setTopicId(offsets.topicId()).setPartitionIndexes(List.of(0)))));
      OffsetFetchResponseData.OffsetFetchResponsePartitions got = ((OffsetFetchResponseData) call(wire,
          ApiKeys.OFFSET_FETCH, (short) 10, ask)).groups().get(0).topics().get(0).partitions().get(0);
      assertThat(Errors.forCode(got.errorCode())).isEqualTo(Errors.NONE);
      assertThat(got.committedOffset()).isEqualTo(-1);

      // A produce to it, by name (v12) or by its id (v13), is refused as Kafka refuses it, not retriably.
      for (short v : new short[] {12, 13}) {
        ProduceRequestData produce = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(30_000);
        produce.topicData().add(new ProduceRequestData.TopicProduceData().setName(v < 13 ? "__consumer_offsets" : "")
            .setTopicId(v < 13 ? Uuid.ZERO_UUID : offsets.topicId()).setPartitionData(List.of(
                new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(MemoryRecords.withRecords(
                    Compression.NONE, new SimpleRecord("x".getBytes(StandardCharsets.UTF_8)))))));
        ProduceResponseData.PartitionProduceResponse refused = ((ProduceResponseData) call(wire, ApiKeys.PRODUCE, v,
            produce)).responses().iterator().next().partitionResponses().get(0);
        assertThat(Errors.forCode(refused.errorCode())).as("produce v" + v).isEqualTo(Errors.INVALID_TOPIC_EXCEPTION);
      }
    }
  }

  /** A KIP-848 member joins subscribed to t, heartbeating until it has its partition; its epoch. */
  static int joinByName(KafkaWire wire, String group, String member) throws Exception {
    ConsumerGroupHeartbeatResponseData joined = heartbeat(wire, new ConsumerGroupHeartbeatRequestData()
        .setGroupId(group).setMemberId(member).setMemberEpoch(0).setRebalanceTimeoutMs(30_000)
        .setSubscribedTopicNames(List.of("t")).setTopicPartitions(List.of()));
    Assigned assigned = assignedAfter(wire, group, member, joined);
    assertThat(assigned.partitions()).singleElement().satisfies(tp -> assertThat(tp.partitions()).containsExactly(0));
    return assigned.epoch();
  }

  /** What a member was given, and its epoch once it owns it. */
  record Assigned(int epoch, List<ConsumerGroupHeartbeatResponseData.TopicPartitions> partitions) {}

  /** Heartbeats until an assignment comes (for at most 10 s), then once more owning it. */
  static Assigned assignedAfter(KafkaWire wire, String group, String member, ConsumerGroupHeartbeatResponseData first)
      throws Exception {
    ConsumerGroupHeartbeatResponseData r = first;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while ((r.assignment() == null || r.assignment().topicPartitions().isEmpty()) && System.nanoTime() < deadline) {
      Thread.sleep(100);
      r = heartbeat(wire, new ConsumerGroupHeartbeatRequestData().setGroupId(group).setMemberId(member)
          .setMemberEpoch(r.memberEpoch()));
    }
    assertThat(r.assignment()).as("an assignment came").isNotNull();
    List<ConsumerGroupHeartbeatRequestData.TopicPartitions> owned = new ArrayList<>();
    r.assignment().topicPartitions().forEach(tp -> owned.add(new ConsumerGroupHeartbeatRequestData.TopicPartitions()
        .setTopicId(tp.topicId()).setPartitions(tp.partitions())));
    // It takes what it was given: its epoch is the group's now.
    ConsumerGroupHeartbeatResponseData ack = heartbeat(wire, new ConsumerGroupHeartbeatRequestData().setGroupId(group)
        .setMemberId(member).setMemberEpoch(r.memberEpoch()).setTopicPartitions(owned));
    return new Assigned(ack.memberEpoch(), r.assignment().topicPartitions());
  }

  static ConsumerGroupHeartbeatResponseData heartbeat(KafkaWire wire, ConsumerGroupHeartbeatRequestData body)
      throws Exception {
    ConsumerGroupHeartbeatResponseData r = (ConsumerGroupHeartbeatResponseData) call(wire,
        ApiKeys.CONSUMER_GROUP_HEARTBEAT, (short) 1, body);
    assertThat(Errors.forCode(r.errorCode())).as(r.errorMessage()).isEqualTo(Errors.NONE);
    return r;
  }

  /** OffsetFetch v9 of t-0 in one group, naming a member (null and -1: none); the group's error. */
  static Errors offsetFetch(KafkaWire wire, String group, String member, int epoch) throws Exception {
    OffsetFetchRequestData body = new OffsetFetchRequestData().setGroups(List.of(
        new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId(group).setMemberId(member).setMemberEpoch(epoch)
            .setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopics().setName("t")
                .setPartitionIndexes(List.of(0))))));
    return Errors.forCode(((OffsetFetchResponseData) call(wire, ApiKeys.OFFSET_FETCH, (short) 9, body)).groups().get(0)
        .errorCode());
  }

  /** The offset committed on t-0 (-1: none), fetched as Admin does (no member). */
  static long committed(KafkaWire wire, String group) throws Exception {
    OffsetFetchRequestData body = new OffsetFetchRequestData().setGroups(List.of(
        new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId(group).setTopics(List.of(
            new OffsetFetchRequestData.OffsetFetchRequestTopics().setName("t").setPartitionIndexes(List.of(0))))));
    OffsetFetchResponseData.OffsetFetchResponseGroup g = ((OffsetFetchResponseData) call(wire, ApiKeys.OFFSET_FETCH,
        (short) 9, body)).groups().get(0);
    assertThat(Errors.forCode(g.errorCode())).isEqualTo(Errors.NONE);
    return g.topics().get(0).partitions().get(0).committedOffset();
  }

  /** OffsetCommit of offset 0 on t-0 at {@code version} (the end offset of the empty t); t-0's error. */
  static Errors offsetCommit(KafkaWire wire, short version, String group, String member, int epoch) throws Exception {
    OffsetCommitRequestData body = new OffsetCommitRequestData().setGroupId(group).setMemberId(member)
        .setGenerationIdOrMemberEpoch(epoch);
    body.topics().add(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName("t").setPartitions(List.of(
        new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(0).setCommittedOffset(0))));
    return Errors.forCode(((OffsetCommitResponseData) call(wire, ApiKeys.OFFSET_COMMIT, version, body)).topics().get(0)
        .partitions().get(0).errorCode());
  }

  static MetadataResponseData.MetadataResponseTopic metadata(KafkaWire wire, String topic) throws Exception {
    MetadataResponseData r = (MetadataResponseData) call(wire, ApiKeys.METADATA, (short) 12, new MetadataRequestData()
        .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName(topic))));
    MetadataResponseData.MetadataResponseTopic t = r.topics().find(topic);
    assertThat(Errors.forCode(t.errorCode())).isEqualTo(Errors.NONE);
    return t;
  }

  static ApiMessage call(KafkaWire wire, ApiKeys key, short version, ApiMessage body) throws Exception {
    int id = ++correlation;
    wire.write(KafkaWire.frame(key, version, id, body));
    return RawKafka.read(wire, key, version, id);
  }
}
