package io.brook.broker.kafka.apis;

import static io.brook.broker.kafka.apis.ConfigsApisTest.entry;
import static io.brook.broker.kafka.apis.ConfigsApisTest.op;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.groups.GroupMode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.AlterConfigOp.OpType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Kafka's GROUP config resource on Brook's group config (D66), on a real core. */
class GroupConfigsApisTest {
  @TempDir Path dir;
  KafkaCore core;

  @BeforeEach
  void setUp() {
    core = new KafkaCore(dir);
  }

  @AfterEach
  void close() {
    core.close();
  }

  DescribeConfigsResult describe(String group) throws Exception {
    DescribeConfigsResponseData r = core.call(ApiKeys.DESCRIBE_CONFIGS, (short) 4, new DescribeConfigsRequestData()
        .setIncludeSynonyms(true).setResources(List.of(new DescribeConfigsResource()
            .setResourceType(ConfigResource.Type.GROUP.id()).setResourceName(group).setConfigurationKeys(null))));
    return r.results().get(0);
  }

  AlterConfigsResourceResponse alter(boolean validateOnly, String group, AlterableConfig... ops) throws Exception {
    AlterConfigsResource resource = new AlterConfigsResource().setResourceType(ConfigResource.Type.GROUP.id())
        .setResourceName(group);
    for (AlterableConfig o : ops) {
      resource.configs().add(o);
    }
    AlterConfigsResourceCollection all = new AlterConfigsResourceCollection();
    all.add(resource);
    IncrementalAlterConfigsResponseData r = core.call(ApiKeys.INCREMENTAL_ALTER_CONFIGS, (short) 1,
        new IncrementalAlterConfigsRequestData().setResources(all).setValidateOnly(validateOnly));
    return r.responses().get(0);
  }

  @Test
  void anAbsentGroupHasTheDefaultsAndIsNotCreated() throws Exception {
    DescribeConfigsResult r = describe("later");
    assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(r.configs()).hasSize(KafkaGroupConfigs.KEYS.size());
    DescribeConfigsResourceResult lock = entry(r, "share.record.lock.duration.ms");
    assertThat(lock.value()).isEqualTo("30000");
    assertThat(lock.readOnly()).isFalse();
    assertThat(lock.configSource()).isEqualTo(ConfigSource.DEFAULT_CONFIG.id());
    assertThat(lock.synonyms()).singleElement().satisfies(s -> assertThat(s.name()).isEqualTo("ack.timeout.ms"));
    assertThat(entry(r, "dead.letter.topic").value()).isEqualTo("later.dlq");
    assertThat(entry(r, "share.isolation.level").readOnly()).isTrue();
    assertThat(entry(r, "consumer.session.timeout.ms").value()).isEqualTo("45000");
    assertThat(core.groups.exists("later")).isFalse();
  }

  @Test
  void settingOnAnAbsentGroupCreatesAnAckGroupWithBrooksKeys() throws Exception {
    assertThat(alter(true, "jobs", op("share.auto.offset.reset", OpType.SET, "earliest")).errorCode())
        .isEqualTo(Errors.NONE.code());
    assertThat(core.groups.exists("jobs")).isFalse(); // validate-only writes nothing
    assertThat(alter(false, "jobs", op("share.auto.offset.reset", OpType.SET, "earliest"),
        op("share.record.lock.duration.ms", OpType.SET, "5000"),
        op("share.delivery.count.limit", OpType.SET, "3")).errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(core.groups.configOf("jobs").mode()).isEqualTo(GroupMode.ACK);
    assertThat(core.groups.configOf("jobs").config().overrides()).containsExactlyInAnyOrderEntriesOf(Map.of(
        "auto.offset.reset", "earliest", "ack.timeout.ms", "5000", "max.delivery.attempts", "3"));
    DescribeConfigsResourceResult lock = entry(describe("jobs"), "share.record.lock.duration.ms");
    assertThat(lock.value()).isEqualTo("5000");
    assertThat(lock.configSource()).isEqualTo(ConfigSource.GROUP_CONFIG.id());
    assertThat(alter(false, "jobs", op("share.record.lock.duration.ms", OpType.DELETE, null)).errorCode())
        .isEqualTo(Errors.NONE.code());
    assertThat(core.groups.configOf("jobs").config().overrides()).doesNotContainKey("ack.timeout.ms");
  }

  @Test
  void badValuesUnknownKeysAndReadOnlyKeysAreInvalidConfig() throws Exception {
    AlterConfigsResourceResponse low = alter(false, "g", op("share.record.lock.duration.ms", OpType.SET, "50"));
    assertThat(low.errorCode()).isEqualTo(Errors.INVALID_CONFIG.code());
    assertThat(low.errorMessage()).contains("share.record.lock.duration.ms (Brook's ack.timeout.ms)", "100 and 3600000");
    assertThat(alter(false, "g", op("share.auto.offset.reset", OpType.SET, "by_duration:PT1H")).errorMessage())
        .contains("use latest or earliest");
    assertThat(alter(false, "g", op("share.delivery.count.limit", OpType.SET, "x")).errorCode())
        .isEqualTo(Errors.INVALID_CONFIG.code());
    AlterConfigsResourceResponse unknown = alter(false, "g", op("ack.timeout.ms", OpType.SET, "5000"));
    assertThat(unknown.errorCode()).isEqualTo(Errors.INVALID_CONFIG.code());
    assertThat(unknown.errorMessage()).contains("unknown group config 'ack.timeout.ms'");
    assertThat(alter(false, "g", op("share.isolation.level", OpType.SET, "read_committed")).errorMessage())
        .contains("no transactions");
    assertThat(alter(false, "g", op("consumer.session.timeout.ms", OpType.SET, "50000")).errorMessage())
        .contains("group.consumer.session.timeout.ms");
    assertThat(alter(false, "g", op("share.partition.max.record.locks", OpType.SET, "10"),
        op("max.unsettled.per.partition", OpType.SET, "20")).errorMessage()).contains("two values");
    assertThat(alter(false, "g", op("share.auto.offset.reset", OpType.APPEND, "x")).errorCode())
        .isEqualTo(Errors.INVALID_CONFIG.code());
    assertThat(core.groups.exists("g")).isFalse(); // nothing refused created it
    assertThat(alter(false, "g", op("share.isolation.level", OpType.SET, "read_uncommitted")).errorCode())
        .isEqualTo(Errors.NONE.code());
    assertThat(core.groups.exists("g")).isFalse(); // a fixed key at its value stores nothing
  }

  @Test
  void anAbsentGroupIsCreatedOnlyUnderAnAckGroupName() throws Exception {
    AlterConfigsResourceResponse r = alter(false, "two words", op("share.auto.offset.reset", OpType.SET, "earliest"));
    assertThat(r.errorCode()).isEqualTo(Errors.INVALID_CONFIG.code());
    assertThat(r.errorMessage()).contains("invalid group name 'two words'", "share group");
    assertThat(describe("two words").errorCode()).isEqualTo(Errors.NONE.code()); // Kafka ids: describable
  }

  @Test
  void anOffsetGroupRefusesShareKeys() throws Exception {
    core.groups.create("offsets", GroupMode.OFFSET, Map.of(), t -> true);
    AlterConfigsResourceResponse r = alter(false, "offsets", op("share.auto.offset.reset", OpType.SET, "earliest"));
    assertThat(r.errorCode()).isEqualTo(Errors.INVALID_CONFIG.code());
    assertThat(r.errorMessage()).contains("consumer group (Brook's offset mode)");
    assertThat(entry(describe("offsets"), "share.auto.offset.reset").readOnly()).isTrue();
  }
}
