package io.brook.broker.it.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.it.BrokerProcess;
import io.brook.protocol.v1.AlterGroupConfigRequest;
import io.brook.protocol.v1.DescribeGroupRequest;
import io.brook.protocol.v1.GroupDescription;
import io.brook.protocol.v1.GroupMode;
import io.brook.protocol.v1.GroupServiceGrpc;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.AlterConfigOp.OpType;
import org.apache.kafka.clients.admin.AlterConfigsOptions;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConfigEntry.ConfigSource;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-clients 4.3.1's Admin on GROUP config resources (D66) against the real broker: Kafka's share.*
 * keys are Brook's ack-group config under Kafka's names, one config whichever door sets it.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class KafkaGroupConfigIT {
  @TempDir static Path dir;
  static BrokerProcess broker;
  static Admin admin;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
    admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.kafkaAddress()));
    admin.createTopics(List.of(new NewTopic("ledger-topic", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    if (admin != null) {
      admin.close();
    }
    if (broker != null) {
      assertThat(broker.isAlive()).isTrue();
      broker.close();
    }
  }

  static ConfigResource group(String name) {
    return new ConfigResource(ConfigResource.Type.GROUP, name);
  }

  static Config describe(String name) throws Exception {
    return admin.describeConfigs(List.of(group(name)), new DescribeConfigsOptions().includeSynonyms(true))
        .all().get(30, TimeUnit.SECONDS).get(group(name));
  }

  static void alter(String name, boolean validateOnly, AlterConfigOp... ops) throws Exception {
    admin.incrementalAlterConfigs(Map.of(group(name), List.of(ops)), new AlterConfigsOptions()
        .validateOnly(validateOnly)).all().get(30, TimeUnit.SECONDS);
  }

  static AlterConfigOp set(String key, String value) {
    return new AlterConfigOp(new ConfigEntry(key, value), OpType.SET);
  }

  static AlterConfigOp delete(String key) {
    return new AlterConfigOp(new ConfigEntry(key, null), OpType.DELETE);
  }

  static Collection<GroupListing> groups() throws Exception {
    return admin.listGroups().all().get(30, TimeUnit.SECONDS);
  }

  static GroupDescription grpcDescribe(String name) {
    return GroupServiceGrpc.newBlockingStub(broker.channel()).describeGroup(DescribeGroupRequest.newBuilder()
        .setGroup(name).build()).getGroup();
  }

  /** The Kafka error of a refused alter: its class and message. */
  static Throwable refusal(String name, AlterConfigOp... ops) {
    ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
        () -> alter(name, false, ops));
    return e.getCause();
  }

  @Test
  void anAbsentGroupDescribesKafkasKeysWithBrooksDefaultsAndIsNotCreated() throws Exception {
    Config c = describe("not-yet");
    assertThat(c.entries()).extracting(ConfigEntry::name).contains("share.record.lock.duration.ms",
        "share.delivery.count.limit", "share.partition.max.record.locks", "share.auto.offset.reset",
        "share.session.timeout.ms", "share.heartbeat.interval.ms", "share.isolation.level",
        "share.renew.acknowledge.enable", "share.assignment.interval.ms", "consumer.session.timeout.ms",
        "consumer.heartbeat.interval.ms", "consumer.assignment.interval.ms", "streams.session.timeout.ms",
        "streams.heartbeat.interval.ms", "streams.num.standby.replicas", "streams.initial.rebalance.delay.ms",
        "streams.assignment.interval.ms", "dead.letter.topic", "max.unsettled.per.partition");
    ConfigEntry lock = c.get("share.record.lock.duration.ms");
    assertThat(lock.value()).isEqualTo("30000");
    assertThat(lock.source()).isEqualTo(ConfigSource.DEFAULT_CONFIG);
    assertThat(lock.isReadOnly()).isFalse();
    assertThat(lock.type()).isEqualTo(ConfigEntry.ConfigType.INT);
    assertThat(lock.synonyms()).extracting(ConfigEntry.ConfigSynonym::name).containsExactly("ack.timeout.ms");
    assertThat(c.get("share.delivery.count.limit").value()).isEqualTo("5");
    assertThat(c.get("share.auto.offset.reset").value()).isEqualTo("latest");
    assertThat(c.get("share.session.timeout.ms").value()).isEqualTo("45000");
    assertThat(c.get("share.heartbeat.interval.ms").value()).isEqualTo("5000");
    assertThat(c.get("dead.letter.topic").value()).isEqualTo("not-yet.dlq");
    assertThat(c.get("share.isolation.level").isReadOnly()).isTrue();
    assertThat(c.get("consumer.session.timeout.ms").value()).isEqualTo("45000");
    assertThat(groups()).extracting(GroupListing::groupId).doesNotContain("not-yet");
  }

  @Test
  void settingConfigOnAnAbsentGroupCreatesAnAckGroupThatBothDoorsSee() throws Exception {
    alter("jobs", true, set("share.auto.offset.reset", "earliest"));
    assertThat(groups()).extracting(GroupListing::groupId).doesNotContain("jobs"); // validate-only
    alter("jobs", false, set("share.auto.offset.reset", "earliest"), set("share.record.lock.duration.ms", "5000"),
        set("share.delivery.count.limit", "3"), set("dead.letter.topic", "jobs-dead"));
    assertThat(groups()).filteredOn(g -> g.groupId().equals("jobs")).singleElement()
        .satisfies(g -> assertThat(g.type()).contains(GroupType.SHARE));
    GroupDescription g = grpcDescribe("jobs");
    assertThat(g.getMode()).isEqualTo(GroupMode.GROUP_MODE_ACK);
    assertThat(g.getConfigMap()).containsAllEntriesOf(Map.of("auto.offset.reset", "earliest", "ack.timeout.ms", "5000",
        "max.delivery.attempts", "3", "dead.letter.topic", "jobs-dead"));
    ConfigEntry lock = describe("jobs").get("share.record.lock.duration.ms");
    assertThat(lock.value()).isEqualTo("5000"); // below Kafka's default floor (15000): Brook's range holds (D66)
    assertThat(lock.source()).isEqualTo(ConfigSource.DYNAMIC_GROUP_CONFIG);

    alter("jobs", false, delete("share.record.lock.duration.ms"), delete("share.isolation.level"));
    assertThat(describe("jobs").get("share.record.lock.duration.ms").value()).isEqualTo("30000");
    assertThat(grpcDescribe("jobs").getConfigMap()).containsEntry("ack.timeout.ms", "30000");

    GroupServiceGrpc.newBlockingStub(broker.channel()).alterGroupConfig(AlterGroupConfigRequest.newBuilder()
        .setGroup("jobs").putSet("ack.timeout.ms", "7000").putSet("max.unsettled.per.partition", "10").build());
    Config c = describe("jobs");
    assertThat(c.get("share.record.lock.duration.ms").value()).isEqualTo("7000");
    assertThat(c.get("share.partition.max.record.locks").value()).isEqualTo("10");
    assertThat(c.get("max.unsettled.per.partition").value()).isEqualTo("10");
  }

  @Test
  void badValuesAndUnknownOrReadOnlyKeysAreInvalidConfigWithAMessage() throws Exception {
    assertThat(refusal("bad", set("share.record.lock.duration.ms", "50")))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("share.record.lock.duration.ms (Brook's ack.timeout.ms)")
        .hasMessageContaining("between 100 and 3600000");
    assertThat(refusal("bad", set("share.delivery.count.limit", "0")))
        .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("max.delivery.attempts");
    assertThat(refusal("bad", set("share.auto.offset.reset", "by_duration:PT1H")))
        .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("use latest or earliest");
    assertThat(refusal("bad", set("share.session.timeout.ms", "ten")))
        .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("not a whole number");
    assertThat(refusal("bad", set("share.isolation.level", "read_committed")))
        .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("no transactions");
    assertThat(refusal("bad", set("consumer.session.timeout.ms", "50000")))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("broker's group.consumer.session.timeout.ms");
    assertThat(refusal("bad", set("streams.num.standby.replicas", "1")))
        .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("no streams groups");
    assertThat(refusal("bad", set("ack.timeout.ms", "5000")))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("unknown group config 'ack.timeout.ms'");
    assertThat(refusal("bad", set("no.such.key", "1")))
        .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("unknown group config 'no.such.key'");
    assertThat(refusal("bad", new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "x"), OpType.APPEND)))
        .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("SET and DELETE only");
    assertThat(groups()).extracting(GroupListing::groupId).doesNotContain("bad"); // nothing refused created it
  }

  @Test
  void anOffsetModeGroupRefusesShareKeysClearly() throws Exception {
    admin.alterConsumerGroupOffsets("ledger", Map.of(new TopicPartition("ledger-topic", 0), new OffsetAndMetadata(0)))
        .all().get(30, TimeUnit.SECONDS);
    assertThat(refusal("ledger", set("share.auto.offset.reset", "earliest")))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("group 'ledger' is a consumer group (Brook's offset mode)");
    Config c = describe("ledger");
    assertThat(c.get("share.auto.offset.reset").isReadOnly()).isTrue();
    assertThat(c.get("consumer.heartbeat.interval.ms").value()).isEqualTo("5000");
    alter("ledger", false, delete("share.auto.offset.reset")); // nothing set: a no-op, as Kafka's DELETE
    assertThat(grpcDescribe("ledger").getMode()).isEqualTo(GroupMode.GROUP_MODE_OFFSET);
  }

  @Test
  void aBadGroupNameIsRefused() {
    assertThatThrownBy(() -> describe("")).hasCauseInstanceOf(org.apache.kafka.common.errors.InvalidRequestException.class);
  }
}
