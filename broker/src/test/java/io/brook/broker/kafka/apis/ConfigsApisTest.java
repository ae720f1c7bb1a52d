package io.brook.broker.kafka.apis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.AlterConfigOp;
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
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** DescribeConfigs and IncrementalAlterConfigs on a real core. */
class ConfigsApisTest {
  @TempDir Path dir;
  KafkaCore core;

  @BeforeEach
  void setUp() {
    core = new KafkaCore(dir);
    core.admin.create("t", 1, Map.of("retention.ms", "60000"));
  }

  @AfterEach
  void close() {
    core.close();
  }

  DescribeConfigsResult describe(short version, ConfigResource.Type type, String name, List<String> keys)
      throws Exception {
    DescribeConfigsResponseData r = core.call(ApiKeys.DESCRIBE_CONFIGS, version, new DescribeConfigsRequestData()
        .setResources(List.of(new DescribeConfigsResource().setResourceType(type.id()).setResourceName(name)
            .setConfigurationKeys(keys))));
    return r.results().get(0);
  }

  static DescribeConfigsResourceResult entry(DescribeConfigsResult r, String name) {
    return r.configs().stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow(() ->
        new AssertionError("no " + name + " in " + r.configs()));
  }

  @Test
  void aTopicsConfigsUnderKafkasNamesWithSourceAndReadOnly() throws Exception {
    DescribeConfigsResult r = describe((short) 4, ConfigResource.Type.TOPIC, "t", null);

    assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
    DescribeConfigsResourceResult retention = entry(r, "retention.ms");
    assertThat(retention.value()).isEqualTo("60000");
    assertThat(retention.configSource()).isEqualTo(ConfigSource.TOPIC_CONFIG.id());
    assertThat(retention.readOnly()).isFalse();
    assertThat(retention.configType()).isEqualTo(ConfigType.LONG.id());
    DescribeConfigsResourceResult bytes = entry(r, "retention.bytes");
    assertThat(bytes.value()).isEqualTo("-1");
    assertThat(bytes.configSource()).isEqualTo(ConfigSource.DEFAULT_CONFIG.id());
    assertThat(entry(r, "message.timestamp.type").value()).isEqualTo("CreateTime");
    assertThat(entry(r, "compression.type").value()).isEqualTo("producer");
    assertThat(entry(r, "cleanup.policy").value()).isEqualTo("delete");
    assertThat(entry(r, "segment.roll").readOnly()).isTrue(); // Brook's own key, fixed at creation
    // Kafka's batch limit under Kafka's name and default; Brook's per-record limit under its own name.
    assertThat(entry(r, "max.message.bytes").value()).isEqualTo("1048588");
    assertThat(entry(r, "max.record.bytes").value()).isEqualTo(String.valueOf(1 << 20));
  }

  @Test
  void onlyTheKeysAskedForAndEveryServedVersion() throws Exception {
    for (short v = 1; v <= 4; v++) {
      DescribeConfigsResult r = describe(v, ConfigResource.Type.TOPIC, "t", List.of("retention.ms", "cleanup.policy"));
      assertThat(r.configs()).as("v" + v).extracting(DescribeConfigsResourceResult::name)
          .containsExactlyInAnyOrder("retention.ms", "cleanup.policy");
    }
  }

  @Test
  void unknownTopicsAndOtherResourcesAreErrorsOfTheirResource() throws Exception {
    assertThat(describe((short) 4, ConfigResource.Type.TOPIC, "nope", null).errorCode())
        .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    assertThat(describe((short) 4, ConfigResource.Type.CLIENT_METRICS, "m", null).errorCode())
        .isEqualTo(Errors.INVALID_REQUEST.code());
    assertThat(describe((short) 4, ConfigResource.Type.BROKER, "3", null).errorCode())
        .isEqualTo(Errors.INVALID_REQUEST.code());
  }

  @Test
  void theBrokersSettingsReadOnlyWithTheirSource() throws Exception {
    DescribeConfigsResult r = describe((short) 4, ConfigResource.Type.BROKER, "0", null);
    assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
    DescribeConfigsResourceResult auto = entry(r, "auto.create.topics.enable");
    assertThat(auto.value()).isEqualTo("true");
    assertThat(auto.readOnly()).isTrue();
    assertThat(auto.configSource()).isEqualTo(ConfigSource.DEFAULT_CONFIG.id());
    DescribeConfigsResourceResult tokens = entry(r, "auth.tokens");
    assertThat(tokens.isSensitive()).isTrue();
    assertThat(tokens.value()).isNull();
    assertThat(describe((short) 4, ConfigResource.Type.BROKER, "", null).configs()).isNotEmpty();
  }

  static AlterableConfig op(String name, AlterConfigOp.OpType op, String value) {
    return new AlterableConfig().setName(name).setConfigOperation(op.id()).setValue(value);
  }

  AlterConfigsResourceResponse alter(boolean validateOnly, ConfigResource.Type type, String name,
      AlterableConfig... ops) throws Exception {
    AlterConfigsResource resource = new AlterConfigsResource().setResourceType(type.id()).setResourceName(name);
    for (AlterableConfig o : ops) {
      resource.configs().add(o);
    }
    AlterConfigsResourceCollection all = new AlterConfigsResourceCollection();
    all.add(resource);
    IncrementalAlterConfigsResponseData r = core.call(ApiKeys.INCREMENTAL_ALTER_CONFIGS, (short) 1,
        new IncrementalAlterConfigsRequestData().setResources(all).setValidateOnly(validateOnly));
    return r.responses().get(0);
  }

  AlterConfigsResourceResponse alter(AlterableConfig... ops) throws Exception {
    return alter(false, ConfigResource.Type.TOPIC, "t", ops);
  }

  @Test
  void setAndDeleteChangeTheTopic() throws Exception {
    assertThat(alter(op("retention.bytes", AlterConfigOp.OpType.SET, "5000"),
        op("retention.ms", AlterConfigOp.OpType.DELETE, null),
        op("message.timestamp.type", AlterConfigOp.OpType.SET, "LogAppendTime"),
        op("compression.type", AlterConfigOp.OpType.SET, "producer")).errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(core.admin.describe("t").overrides()).isEqualTo(Map.of("retention.bytes", "5000",
        "message.timestamp.type", "LogAppendTime"));
  }

  @Test
  void validateOnlyChangesNothing() throws Exception {
    assertThat(alter(true, ConfigResource.Type.TOPIC, "t", op("retention.ms", AlterConfigOp.OpType.SET, "1"))
        .errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(alter(true, ConfigResource.Type.TOPIC, "t", op("retention.ms", AlterConfigOp.OpType.SET, "x"))
        .errorCode()).isEqualTo(Errors.INVALID_CONFIG.code());
    assertThat(core.admin.describe("t").overrides()).isEqualTo(Map.of("retention.ms", "60000"));
  }

  @Test
  void refusalsChangeNothingAndSayWhy() throws Exception {
    AlterConfigsResourceResponse append = alter(op("retention.ms", AlterConfigOp.OpType.APPEND, "1"));
    assertThat(append.errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
    assertThat(append.errorMessage()).contains("APPEND");
    assertThat(alter(op("retention.ms", AlterConfigOp.OpType.SUBTRACT, "1")).errorCode())
        .isEqualTo(Errors.INVALID_REQUEST.code());
    AlterConfigsResourceResponse compact = alter(op("retention.bytes", AlterConfigOp.OpType.SET, "1"),
        op("cleanup.policy", AlterConfigOp.OpType.SET, "compact"));
    assertThat(compact.errorCode()).isEqualTo(Errors.INVALID_CONFIG.code());
    assertThat(compact.errorMessage()).contains("compact");
    assertThat(alter(op("compression.type", AlterConfigOp.OpType.SET, "gzip")).errorCode())
        .isEqualTo(Errors.INVALID_CONFIG.code());
    assertThat(alter(op("unclean.leader.election.enable", AlterConfigOp.OpType.SET, "true")).errorCode())
        .isEqualTo(Errors.INVALID_CONFIG.code());
    AlterConfigsResourceResponse roll = alter(op("segment.roll", AlterConfigOp.OpType.SET, "1d"));
    assertThat(roll.errorCode()).isEqualTo(Errors.INVALID_CONFIG.code());
    assertThat(roll.errorMessage()).contains("segment.roll");
    assertThat(alter(op("retention.ms", AlterConfigOp.OpType.SET, "-5")).errorCode())
        .isEqualTo(Errors.INVALID_CONFIG.code());
    assertThat(alter(false, ConfigResource.Type.TOPIC, "nope", op("retention.ms", AlterConfigOp.OpType.SET, "1"))
        .errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    assertThat(alter(false, ConfigResource.Type.BROKER, "0", op("max.topics", AlterConfigOp.OpType.SET, "1"))
        .errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
    assertThat(core.admin.describe("t").overrides()).isEqualTo(Map.of("retention.ms", "60000"));
  }
}
