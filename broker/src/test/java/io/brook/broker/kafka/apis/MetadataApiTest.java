package io.brook.broker.kafka.apis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataRequestData.MetadataRequestTopic;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetadataApiTest {
  @TempDir Path dir;
  KafkaCore core;

  @AfterEach
  void close() {
    if (core != null) {
      core.close();
    }
  }

  static MetadataRequestData names(boolean allowCreate, String... names) {
    MetadataRequestData r = new MetadataRequestData().setAllowAutoTopicCreation(allowCreate);
    r.setTopics(new java.util.ArrayList<>());
    for (String n : names) {
      r.topics().add(new MetadataRequestTopic().setName(n));
    }
    return r;
  }

  MetadataResponseData metadata(short version, MetadataRequestData request) throws Exception {
    return core.call(ApiKeys.METADATA, version, request);
  }

  @Test
  void allTopicsWhenNullWithTheOneNodeAsLeaderReplicaAndIsrAndTheirIds() throws Exception {
    core = new KafkaCore(dir);
    core.admin.create("a", 3, Map.of());
    core.admin.create("b", 1, Map.of());
    MetadataResponseData r = metadata((short) 12, new MetadataRequestData().setTopics(null));

    assertThat(r.clusterId()).isEqualTo(KafkaCore.NODE.clusterId());
    assertThat(r.controllerId()).isZero();
    assertThat(r.brokers()).singleElement().satisfies(b -> {
      assertThat(b.nodeId()).isZero();
      assertThat(b.host()).isEqualTo("127.0.0.1");
      assertThat(b.port()).isEqualTo(19092);
    });
    assertThat(r.topics()).extracting(MetadataResponseTopic::name).containsExactly("a", "b");
    MetadataResponseTopic a = r.topics().find("a");
    assertThat(a.errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(a.topicId()).isEqualTo(TopicIds.toKafka(core.admin.describe("a").id()));
    assertThat(a.partitions()).extracting(MetadataResponsePartition::partitionIndex).containsExactly(0, 1, 2);
    for (MetadataResponsePartition p : a.partitions()) {
      assertThat(p.leaderId()).isZero();
      assertThat(p.leaderEpoch()).isZero();
      assertThat(p.replicaNodes()).containsExactly(0);
      assertThat(p.isrNodes()).containsExactly(0);
    }
  }

  @Test
  void everyServedVersionEncodesTheAnswer() throws Exception {
    core = new KafkaCore(dir);
    core.admin.create("a", 2, Map.of());
    for (short v = 0; v <= 13; v++) {
      MetadataRequestData request = v == 0 ? names(true) : new MetadataRequestData().setTopics(null);
      MetadataResponseData r = metadata(v, request);
      assertThat(r.topics()).as("v" + v).extracting(MetadataResponseTopic::name).containsExactly("a");
      assertThat(r.topics().find("a").partitions()).as("v" + v).hasSize(2);
    }
  }

  @Test
  void anEmptyListIsNoTopicsFromV1() throws Exception {
    core = new KafkaCore(dir);
    core.admin.create("a", 1, Map.of());
    assertThat(metadata((short) 1, names(true)).topics()).isEmpty(); // before v4 the field is absent: true
  }

  @Test
  void topicsByIdFromV12AndUnknownIds() throws Exception {
    core = new KafkaCore(dir);
    core.admin.create("a", 1, Map.of());
    Uuid id = TopicIds.toKafka(core.admin.describe("a").id());
    Uuid unknown = Uuid.randomUuid();
    MetadataRequestData request = new MetadataRequestData().setTopics(List.of(
        new MetadataRequestTopic().setName(null).setTopicId(id),
        new MetadataRequestTopic().setName(null).setTopicId(unknown)));
    MetadataResponseData r = metadata((short) 12, request);

    assertThat(r.topics()).hasSize(2);
    MetadataResponseTopic found = r.topics().stream().filter(t -> id.equals(t.topicId())).findFirst().orElseThrow();
    assertThat(found.name()).isEqualTo("a");
    assertThat(found.errorCode()).isEqualTo(Errors.NONE.code());
    MetadataResponseTopic missing = r.topics().stream().filter(t -> unknown.equals(t.topicId())).findFirst()
        .orElseThrow();
    assertThat(missing.errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());
  }

  @Test
  void anIdWithTheNameLeftEmptyAsKafkasAdminSendsItIsByIdToo() throws Exception {
    core = new KafkaCore(dir);
    core.admin.create("a", 1, Map.of());
    Uuid id = TopicIds.toKafka(core.admin.describe("a").id());
    MetadataResponseData r = metadata((short) 12, new MetadataRequestData().setTopics(List.of(
        new MetadataRequestTopic().setTopicId(id))));
    assertThat(r.topics()).singleElement().satisfies(t -> {
      assertThat(t.name()).isEqualTo("a");
      assertThat(t.topicId()).isEqualTo(id);
      assertThat(t.errorCode()).isEqualTo(Errors.NONE.code());
    });
  }

  @Test
  void unknownAndInvalidNamesWithoutAutoCreation() throws Exception {
    core = new KafkaCore(dir);
    MetadataResponseData r = metadata((short) 12, names(false, "nope", "bad/name"));
    assertThat(r.topics().find("nope").errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    assertThat(r.topics().find("bad/name").errorCode()).isEqualTo(Errors.INVALID_TOPIC_EXCEPTION.code());
    assertThat(core.admin.list()).isEmpty();
  }

  @Test
  void aRequestThatAllowsItCreatesTheTopicWithTheDefaults() throws Exception {
    core = new KafkaCore(dir);
    MetadataResponseData r = metadata((short) 12, names(true, "auto", "bad/name"));

    MetadataResponseTopic auto = r.topics().find("auto");
    assertThat(auto.errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(auto.partitions()).hasSize(1); // default.partitions
    assertThat(auto.topicId()).isEqualTo(TopicIds.toKafka(core.admin.describe("auto").id()));
    assertThat(r.topics().find("bad/name").errorCode()).isEqualTo(Errors.INVALID_TOPIC_EXCEPTION.code());
    assertThat(core.admin.list()).extracting(t -> t.name()).containsExactly("auto");
  }

  @Test
  void beforeV4EveryRequestAllowsCreation() throws Exception {
    core = new KafkaCore(dir);
    assertThat(metadata((short) 3, names(true, "old")).topics().find("old").errorCode())
        .isEqualTo(Errors.NONE.code());
    assertThat(core.admin.describe("old").partitions()).hasSize(1);
  }

  @Test
  void autoCreationOffCreatesNothingEvenWhenAllowed() throws Exception {
    core = new KafkaCore(dir, 1000, 2000, false);
    assertThat(metadata((short) 12, names(true, "auto")).topics().find("auto").errorCode())
        .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    assertThat(core.admin.list()).isEmpty();
  }

  @Test
  void autoCreationHonoursTheTopicAndPartitionLimits() throws Exception {
    core = new KafkaCore(dir, 1, 2000, true);
    core.admin.create("first", 1, Map.of());
    assertThat(metadata((short) 12, names(true, "second")).topics().find("second").errorCode())
        .isEqualTo(Errors.POLICY_VIOLATION.code());
    core.close();
    core = new KafkaCore(dir.resolve("other"), 1000, 1, true);
    core.admin.create("first", 1, Map.of());
    assertThat(metadata((short) 12, names(true, "second")).topics().find("second").errorCode())
        .isEqualTo(Errors.POLICY_VIOLATION.code());
    assertThat(core.admin.list()).hasSize(1);
  }

  @Test
  void autoCreationIsRefusedWhenTheDiskIsLow() throws Exception {
    core = new KafkaCore(dir);
    core.diskLow();
    assertThat(metadata((short) 12, names(true, "auto")).topics().find("auto").errorCode())
        .isEqualTo(Errors.KAFKA_STORAGE_ERROR.code());
    assertThat(core.admin.list()).isEmpty();
  }

  @Test
  void topicIdsAreTheSameAfterTheTopicsAreReopened() throws Exception {
    core = new KafkaCore(dir);
    core.admin.create("a", 2, Map.of());
    Uuid before = metadata((short) 12, names(false, "a")).topics().find("a").topicId();
    core.close();
    core = new KafkaCore(dir);
    Uuid after = metadata((short) 12, names(false, "a")).topics().find("a").topicId();
    assertThat(after).isEqualTo(before).isNotEqualTo(Uuid.ZERO_UUID);
  }
}
