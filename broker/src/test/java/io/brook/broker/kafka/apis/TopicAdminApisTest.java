package io.brook.broker.kafka.apis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsAssignment;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopicCollection;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreatePartitionsResponseData.CreatePartitionsTopicResult;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableReplicaAssignment;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicCollection;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData.DeleteTopicState;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** CreateTopics, DeleteTopics and CreatePartitions on a real core. */
class TopicAdminApisTest {
  @TempDir Path dir;
  KafkaCore core;

  @AfterEach
  void close() {
    if (core != null) {
      core.close();
    }
  }

  static CreatableTopic topic(String name, int partitions, int replication, Map<String, String> configs) {
    CreatableTopic t = new CreatableTopic().setName(name).setNumPartitions(partitions)
        .setReplicationFactor((short) replication);
    configs.forEach((k, v) -> t.configs().add(new CreatableTopicConfig().setName(k).setValue(v)));
    return t;
  }

  CreatableTopicResult create(boolean validateOnly, CreatableTopic t) throws Exception {
    return create((short) 7, validateOnly, t).topics().find(t.name());
  }

  CreateTopicsResponseData create(short version, boolean validateOnly, CreatableTopic... topics) throws Exception {
    CreatableTopicCollection all = new CreatableTopicCollection();
    for (CreatableTopic t : topics) {
      all.mustAdd(t.duplicate());
    }
    return core.call(ApiKeys.CREATE_TOPICS, version, new CreateTopicsRequestData().setTopics(all)
        .setValidateOnly(validateOnly).setTimeoutMs(30_000));
  }

  @Test
  void createsWithTheDefaultCountAndKafkaNamedConfigsAndAnswersIdCountAndConfigs() throws Exception {
    core = new KafkaCore(dir);
    CreatableTopicResult r = create(false, topic("t", -1, -1, Map.of("retention.ms", "60000",
        "compression.type", "producer", "cleanup.policy", "delete")));

    assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(r.topicId()).isEqualTo(TopicIds.toKafka(core.admin.describe("t").id()));
    assertThat(r.numPartitions()).isEqualTo(1);
    assertThat(r.replicationFactor()).isEqualTo((short) 1);
    assertThat(core.admin.describe("t").overrides()).isEqualTo(Map.of("retention.ms", "60000"));
    assertThat(r.configs()).anySatisfy(c -> {
      assertThat(c.name()).isEqualTo("retention.ms");
      assertThat(c.value()).isEqualTo("60000");
    }).anySatisfy(c -> {
      assertThat(c.name()).isEqualTo("cleanup.policy");
      assertThat(c.value()).isEqualTo("delete");
    });
  }

  @Test
  void everyServedVersionEncodesTheAnswer() throws Exception {
    core = new KafkaCore(dir);
    for (short v = 2; v <= 7; v++) {
      CreatableTopicResult r = create(v, false, topic("t" + v, 2, 1, Map.of())).topics().find("t" + v);
      assertThat(r.errorCode()).as("v" + v).isEqualTo(Errors.NONE.code());
    }
    assertThat(core.admin.list()).hasSize(6);
  }

  @Test
  void validateOnlyChecksEverythingAndCreatesNothing() throws Exception {
    core = new KafkaCore(dir);
    CreatableTopicResult ok = create(true, topic("t", 4, 1, Map.of("retention.bytes", "100")));
    assertThat(ok.errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(ok.numPartitions()).isEqualTo(4);
    assertThat(core.admin.list()).isEmpty();

    core.admin.create("exists", 1, Map.of());
    assertThat(create(true, topic("exists", 1, 1, Map.of())).errorCode()).isEqualTo(Errors.TOPIC_ALREADY_EXISTS.code());
    assertThat(create(true, topic("t", 1, 1, Map.of("retention.ms", "soon"))).errorCode())
        .isEqualTo(Errors.INVALID_CONFIG.code());
    core.diskLow();
    assertThat(create(true, topic("t", 1, 1, Map.of())).errorCode()).isEqualTo(Errors.KAFKA_STORAGE_ERROR.code());
  }

  @Test
  void refusalsCarryKafkasCodeAndAMessage() throws Exception {
    core = new KafkaCore(dir, 2, 2000, true);
    core.admin.create("exists", 1, Map.of());

    CreatableTopicResult rf = create(false, topic("a", 1, 3, Map.of()));
    assertThat(rf.errorCode()).isEqualTo(Errors.INVALID_REPLICATION_FACTOR.code());
    assertThat(rf.errorMessage()).contains("single node").contains("got 3");
    assertThat(create(false, topic("a", 0, 1, Map.of())).errorCode()).isEqualTo(Errors.INVALID_PARTITIONS.code());
    assertThat(create(false, topic("a", 10_001, 1, Map.of())).errorCode()).isEqualTo(Errors.INVALID_PARTITIONS.code());
    assertThat(create(false, topic("bad/name", 1, 1, Map.of())).errorCode())
        .isEqualTo(Errors.INVALID_TOPIC_EXCEPTION.code());
    assertThat(create(false, topic("exists", 1, 1, Map.of())).errorCode())
        .isEqualTo(Errors.TOPIC_ALREADY_EXISTS.code());
    CreatableTopicResult compact = create(false, topic("a", 1, 1, Map.of("cleanup.policy", "compact")));
    assertThat(compact.errorCode()).isEqualTo(Errors.INVALID_CONFIG.code());
    assertThat(compact.errorMessage()).contains("cleanup.policy=compact");
    assertThat(create(false, topic("a", 1, 1, Map.of("compression.type", "zstd"))).errorCode())
        .isEqualTo(Errors.INVALID_CONFIG.code());
    CreatableTopicResult unknown = create(false, topic("a", 1, 1, Map.of("min.insync.replicas", "2")));
    assertThat(unknown.errorCode()).isEqualTo(Errors.INVALID_CONFIG.code());
    assertThat(unknown.errorMessage()).contains("min.insync.replicas").contains("retention.ms");
    assertThat(core.admin.list()).hasSize(1);

    core.admin.create("second", 1, Map.of()); // max.topics = 2 reached
    CreatableTopicResult limit = create(false, topic("a", 1, 1, Map.of()));
    assertThat(limit.errorCode()).isEqualTo(Errors.POLICY_VIOLATION.code());
    assertThat(limit.errorMessage()).contains("max.topics");
  }

  @Test
  void theDiskGuardRefusesNewTopics() throws Exception {
    core = new KafkaCore(dir);
    core.diskLow();
    CreatableTopicResult r = create(false, topic("a", 1, 1, Map.of()));
    assertThat(r.errorCode()).isEqualTo(Errors.KAFKA_STORAGE_ERROR.code());
    assertThat(r.errorMessage()).isNotBlank();
    assertThat(core.admin.list()).isEmpty();
  }

  @Test
  void replicaAssignmentsMayNameOnlyNodeZero() throws Exception {
    core = new KafkaCore(dir);
    CreatableTopic ok = topic("a", -1, -1, Map.of());
    ok.assignments().add(new CreatableReplicaAssignment().setPartitionIndex(0).setBrokerIds(List.of(0)));
    ok.assignments().add(new CreatableReplicaAssignment().setPartitionIndex(1).setBrokerIds(List.of(0)));
    assertThat(create(false, ok).errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(core.admin.describe("a").partitions()).hasSize(2);

    CreatableTopic other = topic("b", -1, -1, Map.of());
    other.assignments().add(new CreatableReplicaAssignment().setPartitionIndex(0).setBrokerIds(List.of(1)));
    assertThat(create(false, other).errorCode()).isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT.code());
  }

  @Test
  void aTopicNamedTwiceIsRefusedOnce() throws Exception {
    core = new KafkaCore(dir);
    CreatableTopicCollection all = new CreatableTopicCollection();
    all.add(topic("a", 1, 1, Map.of()));
    all.add(topic("a", 2, 1, Map.of()));
    CreateTopicsResponseData r = core.call(ApiKeys.CREATE_TOPICS, (short) 7, new CreateTopicsRequestData()
        .setTopics(all));
    assertThat(r.topics()).singleElement().satisfies(t -> assertThat(t.errorCode())
        .isEqualTo(Errors.INVALID_REQUEST.code()));
    assertThat(core.admin.list()).isEmpty();
  }

  @Test
  void deletesByNameAndById() throws Exception {
    core = new KafkaCore(dir);
    core.admin.create("a", 1, Map.of());
    core.admin.create("b", 1, Map.of());
    Uuid bId = TopicIds.toKafka(core.admin.describe("b").id());

    DeleteTopicsResponseData byName = core.call(ApiKeys.DELETE_TOPICS, (short) 5, new DeleteTopicsRequestData()
        .setTopicNames(List.of("a", "nope")).setTimeoutMs(1000));
    assertThat(byName.responses().find("a").errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(byName.responses().find("nope").errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());

    Uuid unknown = Uuid.randomUuid();
    DeleteTopicsResponseData byId = core.call(ApiKeys.DELETE_TOPICS, (short) 6, new DeleteTopicsRequestData()
        .setTopics(List.of(new DeleteTopicState().setName(null).setTopicId(bId),
            new DeleteTopicState().setName(null).setTopicId(unknown))).setTimeoutMs(1000));
    assertThat(byId.responses()).anySatisfy(r -> {
      assertThat(r.name()).isEqualTo("b");
      assertThat(r.topicId()).isEqualTo(bId);
      assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
    }).anySatisfy(r -> {
      assertThat(r.topicId()).isEqualTo(unknown);
      assertThat(r.errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());
    });
    assertThat(core.admin.list()).isEmpty();
    for (short v = 1; v <= 4; v++) {
      core.admin.create("v" + v, 1, Map.of());
      DeleteTopicsResponseData r = core.call(ApiKeys.DELETE_TOPICS, v, new DeleteTopicsRequestData()
          .setTopicNames(List.of("v" + v)));
      assertThat(r.responses().find("v" + v).errorCode()).as("v" + v).isEqualTo(Errors.NONE.code());
    }
  }

  CreatePartitionsTopicResult grow(String name, int count, boolean validateOnly) throws Exception {
    CreatePartitionsTopicCollection topics = new CreatePartitionsTopicCollection();
    topics.add(new CreatePartitionsTopic().setName(name).setCount(count).setAssignments(null));
    CreatePartitionsResponseData r = core.call(ApiKeys.CREATE_PARTITIONS, (short) 3, new CreatePartitionsRequestData()
        .setTopics(topics).setValidateOnly(validateOnly).setTimeoutMs(1000));
    return r.results().get(0);
  }

  @Test
  void partitionsGrowOnlyAndValidateOnlyChangesNothing() throws Exception {
    core = new KafkaCore(dir, 1000, 4, true);
    core.admin.create("t", 2, Map.of());

    assertThat(grow("t", 3, true).errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(core.admin.describe("t").partitions()).hasSize(2);
    assertThat(grow("t", 3, false).errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(core.admin.describe("t").partitions()).hasSize(3);

    CreatePartitionsTopicResult shrink = grow("t", 2, false);
    assertThat(shrink.errorCode()).isEqualTo(Errors.INVALID_PARTITIONS.code());
    assertThat(shrink.errorMessage()).contains("never shrink");
    assertThat(grow("nope", 3, false).errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    assertThat(grow("t", 5, false).errorCode()).isEqualTo(Errors.POLICY_VIOLATION.code()); // max.partitions = 4
    core.diskLow();
    assertThat(grow("t", 4, true).errorCode()).isEqualTo(Errors.KAFKA_STORAGE_ERROR.code());
    assertThat(grow("t", 4, false).errorCode()).isEqualTo(Errors.KAFKA_STORAGE_ERROR.code());
    assertThat(core.admin.describe("t").partitions()).hasSize(3);
  }

  @Test
  void newPartitionsMayBeAssignedOnlyToNodeZero() throws Exception {
    core = new KafkaCore(dir);
    core.admin.create("t", 1, Map.of());
    CreatePartitionsTopicCollection topics = new CreatePartitionsTopicCollection();
    topics.add(new CreatePartitionsTopic().setName("t").setCount(2).setAssignments(List.of(
        new CreatePartitionsAssignment().setBrokerIds(List.of(2)))));
    CreatePartitionsResponseData r = core.call(ApiKeys.CREATE_PARTITIONS, (short) 0, new CreatePartitionsRequestData()
        .setTopics(topics));
    assertThat(r.results().get(0).errorCode()).isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT.code());
    assertThat(core.admin.describe("t").partitions()).hasSize(1);
  }
}
