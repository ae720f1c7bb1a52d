package io.brook.broker.kafka.apis;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.core.OffsetQuery;
import io.brook.broker.groups.JoinRequest;
import io.brook.broker.groups.TopicPartition;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartition;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * FindCoordinator, OffsetCommit and OffsetFetch on the real core, every version through Kafka's codec:
 * what Kafka commits is what gRPC reads, and the reverse.
 */
class GroupOffsetApisTest {
  @TempDir Path dir;
  KafkaCore core;
  Uuid topicId;

  @BeforeEach
  void start() throws Exception {
    core = new KafkaCore(dir);
    core.admin.create("t", 2, Map.of());
    core.append("t", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
    topicId = TopicIds.toKafka(core.admin.idOf("t"));
  }

  @AfterEach
  void close() {
    core.close();
  }

  OffsetCommitRequestData commit(String group, int generation, String memberId, long offset, String metadata) {
    return new OffsetCommitRequestData().setGroupId(group).setGenerationIdOrMemberEpoch(generation)
        .setMemberId(memberId).setTopics(List.of(new OffsetCommitRequestTopic().setName("t").setTopicId(topicId)
            .setPartitions(List.of(new OffsetCommitRequestPartition().setPartitionIndex(0).setCommittedOffset(offset)
                .setCommittedMetadata(metadata)))));
  }

  OffsetCommitResponsePartition commitAt(short v, OffsetCommitRequestData request) throws Exception {
    OffsetCommitResponseData r = core.call(ApiKeys.OFFSET_COMMIT, v, request);
    return r.topics().get(0).partitions().get(0);
  }

  OffsetFetchResponsePartitions fetchAt(short v, String group) throws Exception {
    if (v < 8) {
      OffsetFetchResponseData r = core.call(ApiKeys.OFFSET_FETCH, v, new OffsetFetchRequestData().setGroupId(group)
          .setTopics(List.of(new OffsetFetchRequestTopic().setName("t").setPartitionIndexes(List.of(0)))));
      assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
      OffsetFetchResponsePartition p = r.topics().get(0).partitions().get(0);
      return new OffsetFetchResponsePartitions().setPartitionIndex(p.partitionIndex())
          .setCommittedOffset(p.committedOffset()).setMetadata(p.metadata()).setErrorCode(p.errorCode());
    }
    OffsetFetchResponseData r = core.call(ApiKeys.OFFSET_FETCH, v, new OffsetFetchRequestData().setGroups(List.of(
        new OffsetFetchRequestGroup().setGroupId(group).setTopics(List.of(new OffsetFetchRequestTopics().setName("t")
            .setTopicId(topicId).setPartitionIndexes(List.of(0)))))));
    OffsetFetchResponseGroup g = r.groups().get(0);
    assertThat(g.errorCode()).isEqualTo(Errors.NONE.code());
    if (v >= 10) {
      assertThat(g.topics().get(0).topicId()).isEqualTo(topicId);
    } else {
      assertThat(g.topics().get(0).name()).isEqualTo("t");
    }
    return g.topics().get(0).partitions().get(0);
  }

  @Test
  void findCoordinatorAnswersThisNodeForGroupsInEveryVersion() throws Exception {
    for (short v = 0; v <= 6; v++) {
      FindCoordinatorRequestData request = v >= 4
          ? new FindCoordinatorRequestData().setKeyType((byte) 0).setCoordinatorKeys(List.of("a", "b c"))
          : new FindCoordinatorRequestData().setKey("a");
      FindCoordinatorResponseData r = core.call(ApiKeys.FIND_COORDINATOR, v, request);
      if (v >= 4) {
        assertThat(r.coordinators()).extracting(c -> c.key()).containsExactly("a", "b c");
        assertThat(r.coordinators()).allSatisfy(c -> {
          assertThat(c.errorCode()).isEqualTo(Errors.NONE.code());
          assertThat(c.host()).isEqualTo("127.0.0.1");
          assertThat(c.port()).isEqualTo(19092);
        });
      } else {
        assertThat(r.errorCode()).as("v" + v).isEqualTo(Errors.NONE.code());
        assertThat(r.nodeId()).isZero();
        assertThat(r.port()).isEqualTo(19092);
      }
    }
  }

  @Test
  void findCoordinatorRefusesTransactionsAndUnknownKeyTypes() throws Exception {
    FindCoordinatorResponseData r = core.call(ApiKeys.FIND_COORDINATOR, (short) 6,
        new FindCoordinatorRequestData().setKeyType((byte) 1).setCoordinatorKeys(List.of("tx")));
    assertThat(r.coordinators().get(0).errorCode()).isEqualTo(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code());
    r = core.call(ApiKeys.FIND_COORDINATOR, (short) 3, new FindCoordinatorRequestData().setKeyType((byte) 9)
        .setKey("x"));
    assertThat(r.errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
    assertThat(r.errorMessage()).contains("key type 9");
  }

  @Test
  void anOutsiderCommitsInEveryVersionAndEveryVersionReadsItBack() throws Exception {
    for (short v = 2; v <= 10; v++) {
      String group = "g" + v;
      long offset = v - 1;
      assertThat(commitAt(v, commit(group, -1, "", v - 1, "m" + v)).errorCode()).as("v" + v)
          .isEqualTo(Errors.NONE.code());
      // gRPC's view of the same group
      assertThat(core.groups.committed(group, List.of(), t -> true)).singleElement()
          .satisfies(e -> assertThat(e.getKey()).isEqualTo(new TopicPartition("t", 0)))
          .satisfies(e -> assertThat(e.getValue().offset()).isEqualTo(offset));
      for (short fv = 1; fv <= 10; fv++) {
        OffsetFetchResponsePartitions p = fetchAt(fv, group);
        assertThat(p.committedOffset()).as("commit v%d fetch v%d", v, fv).isEqualTo(v - 1);
        assertThat(p.metadata()).isEqualTo("m" + v);
      }
    }
  }

  @Test
  void aFetchOfNothingCommittedIsMinusOneWithoutError() throws Exception {
    for (short v = 1; v <= 10; v++) {
      OffsetFetchResponsePartitions p = fetchAt(v, "nobody");
      assertThat(p.committedOffset()).as("v" + v).isEqualTo(-1);
      assertThat(p.errorCode()).isEqualTo(Errors.NONE.code());
    }
    assertThat(core.groups.exists("nobody")).isFalse();
  }

  @Test
  void nullTopicsFetchEveryCommittedOffset() throws Exception {
    core.admin.create("u", 1, Map.of());
    core.append("u", 1);
    core.groups.commit("g", "", 0, List.of(new io.brook.broker.groups.CommitRequest(new TopicPartition("t", 1), 0, ""),
        new io.brook.broker.groups.CommitRequest(new TopicPartition("u", 0), 1, "x")), null); // a gRPC commit
    OffsetFetchResponseData r = core.call(ApiKeys.OFFSET_FETCH, (short) 7,
        new OffsetFetchRequestData().setGroupId("g").setTopics(null));
    assertThat(r.topics()).extracting(t -> t.name()).containsExactly("t", "u");
    assertThat(r.topics().get(1).partitions().get(0).committedOffset()).isEqualTo(1);
    r = core.call(ApiKeys.OFFSET_FETCH, (short) 10, new OffsetFetchRequestData().setGroups(List.of(
        new OffsetFetchRequestGroup().setGroupId("g").setTopics(null))));
    assertThat(r.groups().get(0).topics()).extracting(t -> t.topicId())
        .containsExactly(topicId, TopicIds.toKafka(core.admin.idOf("u")));
  }

  @Test
  void perPartitionRefusals() throws Exception {
    assertThat(commitAt((short) 9, commit("g", -1, "", 11, "")).errorCode())
        .isEqualTo(Errors.OFFSET_OUT_OF_RANGE.code()); // past the end: Brook refuses it
    assertThat(commitAt((short) 9, commit("g", -1, "", 1, "x".repeat(4097))).errorCode())
        .isEqualTo(Errors.OFFSET_METADATA_TOO_LARGE.code());
    OffsetCommitRequestData unknown = commit("g", -1, "", 1, "");
    unknown.topics().get(0).setName("nope").setTopicId(Uuid.randomUuid());
    assertThat(commitAt((short) 9, unknown).errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    assertThat(commitAt((short) 10, unknown).errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());
    assertThat(commitAt((short) 9, commit("", -1, "", 1, "")).errorCode()).isEqualTo(Errors.INVALID_GROUP_ID.code());
  }

  @Test
  void aMemberCommitNeedsAMember() throws Exception {
    // An unknown group: GROUP_ID_NOT_FOUND from v9, ILLEGAL_GENERATION before, and no group is created.
    assertThat(commitAt((short) 9, commit("gone", 3, "m-1", 1, "")).errorCode())
        .isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
    assertThat(commitAt((short) 8, commit("gone", 3, "m-1", 1, "")).errorCode())
        .isEqualTo(Errors.ILLEGAL_GENERATION.code());
    assertThat(core.groups.exists("gone")).isFalse();
    // A group with no members: the member is unknown.
    assertThat(commitAt((short) 9, commit("empty", -1, "", 1, "")).errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(commitAt((short) 9, commit("empty", 3, "m-1", 2, "")).errorCode())
        .isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());
    assertThat(core.groups.committed("empty", List.of(new OffsetQuery("t", List.of(0))), t -> true).get(0).getValue()
        .offset()).isEqualTo(1);
  }

  @Test
  void anOutsiderCannotCommitWhileGrpcMembersAreIn() throws Exception {
    core.groups.join("live", new JoinRequest("", "c", "127.0.0.1", List.of("t"), 10_000, 10_000, null));
    assertThat(commitAt((short) 9, commit("live", -1, "", 1, "")).errorCode())
        .isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());
    assertThat(fetchAt((short) 9, "live").committedOffset()).isEqualTo(-1);
  }

  @Test
  void aFetchNamingAMemberOfAnUnknownGroupFindsNothingWithoutAnError() throws Exception {
    // As Kafka 4.3.1 answers (no GROUP_ID_NOT_FOUND: an unknown group has no members to check), and no group is made.
    OffsetFetchResponseData r = core.call(ApiKeys.OFFSET_FETCH, (short) 9, new OffsetFetchRequestData().setGroups(
        List.of(new OffsetFetchRequestGroup().setGroupId("none").setMemberId("m").setMemberEpoch(3).setTopics(null),
            new OffsetFetchRequestGroup().setGroupId("").setTopics(null))));
    assertThat(r.groups()).extracting(g -> g.errorCode())
        .containsExactly(Errors.NONE.code(), Errors.INVALID_GROUP_ID.code());
    assertThat(r.groups().get(0).topics()).isEmpty();
    assertThat(core.groups.exists("none")).isFalse();
  }
}
