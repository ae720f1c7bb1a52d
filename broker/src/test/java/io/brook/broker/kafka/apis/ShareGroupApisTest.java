package io.brook.broker.kafka.apis;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.groups.CommitRequest;
import io.brook.broker.groups.GroupMode;
import io.brook.broker.groups.TopicPartition;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestPartition;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopic;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopicCollection;
import org.apache.kafka.common.message.AlterShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData.DeleteShareGroupOffsetsRequestTopic;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestTopic;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponsePartition;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData.DescribedGroup;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ShareGroupDescribe, DescribeShareGroupOffsets, AlterShareGroupOffsets and DeleteShareGroupOffsets on
 * the real core, through Kafka's codec at each version (D67). Live members are in KafkaShareGroupAdminIT.
 */
class ShareGroupApisTest {
  @TempDir Path dir;
  KafkaCore core;

  @BeforeEach
  void start() throws Exception {
    core = new KafkaCore(dir);
    core.admin.create("t", 2, Map.of());
    core.admin.create("u", 1, Map.of());
    core.append("t", 1, 2, 3, 4); // partition 0: offsets 0-3
    core.groups.create("acks", GroupMode.ACK, Map.of(), t -> true);
    core.groups.commit("offsets", "", 0, List.of(new CommitRequest(new TopicPartition("t", 0), 2, "")), null);
  }

  @AfterEach
  void close() {
    core.close();
  }

  DescribedGroup describe(String group) throws Exception {
    ShareGroupDescribeResponseData r = core.call(ApiKeys.SHARE_GROUP_DESCRIBE, (short) 1,
        new ShareGroupDescribeRequestData().setGroupIds(List.of(group)).setIncludeAuthorizedOperations(true));
    return r.groups().get(0);
  }

  AlterShareGroupOffsetsResponseData alter(String group, String topic, int partition, long offset) throws Exception {
    AlterShareGroupOffsetsRequestTopicCollection topics = new AlterShareGroupOffsetsRequestTopicCollection();
    topics.add(new AlterShareGroupOffsetsRequestTopic().setTopicName(topic).setPartitions(List.of(
        new AlterShareGroupOffsetsRequestPartition().setPartitionIndex(partition).setStartOffset(offset))));
    return core.call(ApiKeys.ALTER_SHARE_GROUP_OFFSETS, (short) 0,
        new AlterShareGroupOffsetsRequestData().setGroupId(group).setTopics(topics));
  }

  DescribeShareGroupOffsetsResponseGroup offsets(short v, String group,
      List<DescribeShareGroupOffsetsRequestTopic> topics) throws Exception {
    DescribeShareGroupOffsetsResponseData r = core.call(ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS, v,
        new DescribeShareGroupOffsetsRequestData().setGroups(List.of(
            new DescribeShareGroupOffsetsRequestGroup().setGroupId(group).setTopics(topics))));
    return r.groups().get(0);
  }

  DeleteShareGroupOffsetsResponseData deleteOffsets(String group, String... topics) throws Exception {
    return core.call(ApiKeys.DELETE_SHARE_GROUP_OFFSETS, (short) 0, new DeleteShareGroupOffsetsRequestData()
        .setGroupId(group).setTopics(java.util.Arrays.stream(topics)
            .map(t -> new DeleteShareGroupOffsetsRequestTopic().setTopicName(t)).toList()));
  }

  @Test
  void describeAnAckGroupAsAnEmptyShareGroupAndRefuseOthersAsKafka() throws Exception {
    DescribedGroup acks = describe("acks");
    assertThat(acks.errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(acks.groupState()).isEqualTo("Empty");
    assertThat(acks.assignorName()).isEqualTo("simple");
    assertThat(acks.members()).isEmpty();
    assertThat(acks.authorizedOperations()).isNotEqualTo(Integer.MIN_VALUE);

    DescribedGroup offsets = describe("offsets");
    assertThat(offsets.errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
    assertThat(offsets.errorMessage()).isEqualTo("Group offsets is not a share group.");
    DescribedGroup nope = describe("nope");
    assertThat(nope.errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
    assertThat(nope.errorMessage()).isEqualTo("Group nope not found.");
    assertThat(describe("").errorCode()).isEqualTo(Errors.INVALID_GROUP_ID.code());
  }

  @Test
  void alteredStartsAreDescribedWithTheirLagFromV1() throws Exception {
    AlterShareGroupOffsetsResponseData r = alter("acks", "t", 0, 1);
    assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(r.responses().find("t").partitions().get(0).errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(r.responses().find("t").topicId()).isNotEqualTo(org.apache.kafka.common.Uuid.ZERO_UUID);

    for (short v = 0; v <= 1; v++) {
      DescribeShareGroupOffsetsResponseGroup all = offsets(v, "acks", null);
      assertThat(all.errorCode()).isEqualTo(Errors.NONE.code());
      assertThat(all.topics()).singleElement().satisfies(t -> assertThat(t.partitions()).singleElement()
          .satisfies(p -> {
            assertThat(p.partitionIndex()).isZero();
            assertThat(p.startOffset()).isEqualTo(1);
            assertThat(p.leaderEpoch()).isZero();
          }));
      long lag = all.topics().get(0).partitions().get(0).lag();
      assertThat(lag).as("v" + v).isEqualTo(v == 0 ? -1 : 3); // offsets 1-3 not settled; v0 has no lag
    }
    // Named: partition 1 has no window (not initialized: -1), partition 5 and topic "x" do not exist.
    DescribeShareGroupOffsetsResponseGroup named = offsets((short) 1, "acks", List.of(
        new DescribeShareGroupOffsetsRequestTopic().setTopicName("t").setPartitions(List.of(0, 1, 5)),
        new DescribeShareGroupOffsetsRequestTopic().setTopicName("x").setPartitions(List.of(0))));
    List<DescribeShareGroupOffsetsResponsePartition> t = named.topics().get(0).partitions();
    assertThat(t).extracting(p -> p.startOffset() + "/" + p.lag() + "/" + Errors.forCode(p.errorCode()))
        .containsExactly("1/3/NONE", "-1/-1/NONE", "-1/-1/UNKNOWN_TOPIC_OR_PARTITION");
    assertThat(named.topics().get(1).partitions().get(0).errorCode())
        .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
  }

  @Test
  void alterRefusesOutOfRangeAndUnknownPartitionsAndCreatesAnAbsentGroup() throws Exception {
    assertThat(alter("acks", "t", 0, 99).responses().find("t").partitions().get(0).errorCode())
        .isEqualTo(Errors.OFFSET_OUT_OF_RANGE.code());
    assertThat(alter("acks", "t", 7, 0).responses().find("t").partitions().get(0).errorCode())
        .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    assertThat(alter("acks", "x", 0, 0).responses().find("x").partitions().get(0).errorCode())
        .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    AlterShareGroupOffsetsResponseData offsetGroup = alter("offsets", "t", 0, 0);
    assertThat(offsetGroup.errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
    assertThat(offsetGroup.errorMessage()).isEqualTo("Group offsets is not a share group.");
    assertThat(alter("fresh", "t", 0, 4).errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(describe("fresh").errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(offsets((short) 1, "fresh", null).topics().get(0).partitions().get(0).lag()).isZero();
  }

  @Test
  void deleteOffsetsForgetsATopicsWindowsAndSaysWhyPerTopic() throws Exception {
    alter("acks", "t", 0, 2);
    DeleteShareGroupOffsetsResponseData r = deleteOffsets("acks", "t", "u", "x");
    assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(r.responses()).extracting(t -> t.topicName() + " " + Errors.forCode(t.errorCode()))
        .containsExactly("t NONE", "u UNKNOWN_TOPIC_OR_PARTITION", "x UNKNOWN_TOPIC_OR_PARTITION");
    assertThat(r.responses().get(1).errorMessage()).isEqualTo("There is no offset information to delete.");
    assertThat(offsets((short) 1, "acks", null).topics()).isEmpty();
    assertThat(deleteOffsets("nope", "t").errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
    assertThat(deleteOffsets("offsets", "t").errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
  }
}
