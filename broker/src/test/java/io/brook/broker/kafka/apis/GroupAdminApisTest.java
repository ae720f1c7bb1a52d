package io.brook.broker.kafka.apis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.groups.CommitRequest;
import io.brook.broker.groups.GroupMode;
import io.brook.broker.groups.JoinRequest;
import io.brook.broker.groups.TopicPartition;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData.ListedGroup;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestPartition;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopic;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ListGroups, DescribeGroups, DeleteGroups and OffsetDelete on the real core, through Kafka's codec. */
class GroupAdminApisTest {
  @TempDir Path dir;
  KafkaCore core;

  @BeforeEach
  void start() throws Exception {
    core = new KafkaCore(dir);
    core.admin.create("t", 2, Map.of());
    core.append("t", 1, 2, 3);
    core.groups.commit("offsets", "", 0, List.of(new CommitRequest(new TopicPartition("t", 0), 2, ""),
        new CommitRequest(new TopicPartition("t", 1), 0, "")), null);
    core.groups.join("live", new JoinRequest("", "grpc-client", "10.0.0.1:5000", List.of("t"), 10_000, 10_000, null));
    core.groups.create("acks", GroupMode.ACK, Map.of(), t -> true);
  }

  @AfterEach
  void close() {
    core.close();
  }

  Map<String, ListedGroup> list(short v, List<String> states, List<String> types) throws Exception {
    ListGroupsResponseData r = core.call(ApiKeys.LIST_GROUPS, v, new ListGroupsRequestData().setStatesFilter(states)
        .setTypesFilter(types));
    assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
    return r.groups().stream().collect(java.util.stream.Collectors.toMap(ListedGroup::groupId, g -> g));
  }

  @Test
  void listGroupsShowsEveryDoorsGroupsWithKafkasTypesAndStates() throws Exception {
    for (short v = 0; v <= 5; v++) {
      assertThat(list(v, List.of(), List.of())).as("v" + v).containsOnlyKeys("offsets", "live", "acks");
    }
    Map<String, ListedGroup> all = list((short) 5, List.of(), List.of());
    assertThat(all.get("offsets").protocolType()).isEmpty();
    assertThat(all.get("offsets").groupType()).isEqualTo("classic");
    assertThat(all.get("offsets").groupState()).isEqualTo("Empty");
    assertThat(all.get("live").protocolType()).isEqualTo("consumer");
    assertThat(all.get("live").groupState()).isEqualTo("Stable");
    assertThat(all.get("acks").groupType()).isEqualTo("share");
    assertThat(all.get("acks").protocolType()).isEqualTo("share");
    assertThat(list((short) 5, List.of("STABLE"), List.of())).containsOnlyKeys("live");
    assertThat(list((short) 5, List.of(), List.of("Classic", "consumer"))).containsOnlyKeys("offsets", "live");
    assertThat(list((short) 4, List.of("empty"), List.of())).containsOnlyKeys("offsets", "acks");
  }

  DescribedGroup describe(short v, String group) throws Exception {
    DescribeGroupsResponseData r = core.call(ApiKeys.DESCRIBE_GROUPS, v,
        new DescribeGroupsRequestData().setGroups(List.of(group)).setIncludeAuthorizedOperations(v >= 3));
    DescribedGroup d = r.groups().get(0);
    if (v >= 3 && d.errorCode() == Errors.NONE.code() && !d.groupState().equals("Dead")) {
      assertThat(d.authorizedOperations()).as("auth off: read, describe, delete").isEqualTo(
          1 << org.apache.kafka.common.acl.AclOperation.READ.code()
              | 1 << org.apache.kafka.common.acl.AclOperation.DESCRIBE.code()
              | 1 << org.apache.kafka.common.acl.AclOperation.DELETE.code());
    }
    return d;
  }

  @Test
  void describeGroupsShowsGrpcMembersAsConsumers() throws Exception {
    for (short v = 0; v <= 6; v++) {
      DescribedGroup live = describe(v, "live");
      assertThat(live.errorCode()).as("v" + v).isEqualTo(Errors.NONE.code());
      assertThat(live.groupState()).isEqualTo("Stable");
      assertThat(live.protocolType()).isEqualTo("consumer");
      assertThat(live.protocolData()).isEqualTo("brook");
      assertThat(live.members()).singleElement().satisfies(m -> {
        assertThat(m.clientId()).isEqualTo("grpc-client");
        assertThat(m.clientHost()).isEqualTo("10.0.0.1:5000");
        assertThat(org.apache.kafka.clients.consumer.internals.ConsumerProtocol.deserializeAssignment(
            java.nio.ByteBuffer.wrap(m.memberAssignment())).partitions()).containsExactlyInAnyOrder(
            new org.apache.kafka.common.TopicPartition("t", 0), new org.apache.kafka.common.TopicPartition("t", 1));
      });
      DescribedGroup offsets = describe(v, "offsets");
      assertThat(offsets.groupState()).isEqualTo("Empty");
      assertThat(offsets.protocolType()).isEmpty();
      assertThat(offsets.members()).isEmpty();
    }
  }

  @Test
  void anUnknownOrAckGroupIsDeadBeforeV6AndNotFoundFrom() throws Exception {
    for (String group : List.of("nope", "acks")) {
      for (short v = 0; v <= 5; v++) {
        DescribedGroup d = describe(v, group);
        assertThat(d.errorCode()).as(group + " v" + v).isEqualTo(Errors.NONE.code());
        assertThat(d.groupState()).isEqualTo("Dead");
      }
      DescribedGroup d = describe((short) 6, group);
      assertThat(d.errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
      assertThat(d.errorMessage()).contains(group);
    }
    assertThat(describe((short) 6, "").errorCode()).isEqualTo(Errors.INVALID_GROUP_ID.code());
  }

  @Test
  void deleteGroupsAnswersPerGroup() throws Exception {
    for (short v = 0; v <= 2; v++) {
      core.groups.commit("d" + v, "", 0, List.of(new CommitRequest(new TopicPartition("t", 0), 1, "")), null);
      DeleteGroupsResponseData r = core.call(ApiKeys.DELETE_GROUPS, v, new DeleteGroupsRequestData()
          .setGroupsNames(List.of("d" + v, "live", "nope", "")));
      assertThat(r.results().find("d" + v).errorCode()).isEqualTo(Errors.NONE.code());
      assertThat(r.results().find("live").errorCode()).isEqualTo(Errors.NON_EMPTY_GROUP.code());
      assertThat(r.results().find("nope").errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
      assertThat(r.results().find("").errorCode()).isEqualTo(Errors.INVALID_GROUP_ID.code());
      assertThat(core.groups.exists("d" + v)).isFalse();
    }
  }

  OffsetDeleteResponseData deleteOffsets(String group, String topic, int... partitions) throws Exception {
    OffsetDeleteRequestTopic t = new OffsetDeleteRequestTopic().setName(topic);
    for (int p : partitions) {
      t.partitions().add(new OffsetDeleteRequestPartition().setPartitionIndex(p));
    }
    OffsetDeleteRequestTopicCollection topics = new OffsetDeleteRequestTopicCollection();
    topics.add(t);
    return core.call(ApiKeys.OFFSET_DELETE, (short) 0, new OffsetDeleteRequestData().setGroupId(group)
        .setTopics(topics));
  }

  @Test
  void offsetDeleteForgetsOffsetsOfAGroupWithoutGrpcMembers() throws Exception {
    OffsetDeleteResponseData r = deleteOffsets("offsets", "t", 0, 5);
    assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(r.topics().find("t").partitions().find(0).errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(r.topics().find("t").partitions().find(5).errorCode())
        .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    assertThat(core.groups.committed("offsets", List.of(), t -> true)).extracting(e -> e.getKey())
        .containsExactly(new TopicPartition("t", 1));
    assertThat(deleteOffsets("offsets", "other", 0).topics().find("other").partitions().find(0).errorCode())
        .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    assertThat(deleteOffsets("live", "t", 0).errorCode()).isEqualTo(Errors.NON_EMPTY_GROUP.code());
    assertThat(deleteOffsets("nope", "t", 0).errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
    assertThat(deleteOffsets("acks", "t", 0).errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
    // A commit after the deletion starts the partition again.
    core.groups.commit("offsets", "", 0, List.of(new CommitRequest(new TopicPartition("t", 0), 3, "")), null);
    assertThat(core.groups.committed("offsets", List.of(), t -> true)).hasSize(2);
  }

  @Test
  void consumerOffsetsIsAnInternalEmptyTopicThatCannotBeWrittenOrCreated() throws Exception {
    org.apache.kafka.common.message.MetadataResponseData all = core.call(ApiKeys.METADATA, (short) 12,
        new org.apache.kafka.common.message.MetadataRequestData().setTopics(null));
    var offsets = all.topics().find("__consumer_offsets"); // groups exist: listed
    assertThat(offsets.isInternal()).isTrue();
    assertThat(offsets.partitions()).hasSize(1);
    assertThat(all.topics().find("t").isInternal()).isFalse();
    assertThatThrownBy(() -> core.admin.create("__consumer_offsets", 1, Map.of()))
        .hasMessageContaining("internal");
    var created = core.call(ApiKeys.CREATE_TOPICS, (short) 7, new org.apache.kafka.common.message.CreateTopicsRequestData()
        .setTopics(new org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicCollection(List.of(
            new org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic().setName("__consumer_offsets")
                .setNumPartitions(1).setReplicationFactor((short) 1)).iterator())));
    assertThat(((org.apache.kafka.common.message.CreateTopicsResponseData) created).topics()
        .find("__consumer_offsets").errorCode()).isEqualTo(Errors.TOPIC_ALREADY_EXISTS.code());
  }
}
