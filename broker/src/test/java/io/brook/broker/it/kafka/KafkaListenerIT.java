package io.brook.broker.it.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.it.BrokerProcess;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The Kafka listener of the real broker process: ApiVersions, framing and pipelining. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class KafkaListenerIT {
  @TempDir static Path dir;
  static BrokerProcess broker;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
  }

  @AfterAll
  static void stop() throws Exception {
    if (broker != null) {
      assertThat(broker.isAlive()).isTrue();
      broker.close();
    }
  }

  @Test
  void apiVersionsListsTheServedApisWithTheirRanges() throws Exception {
    for (short version = 0; version <= ApiKeys.API_VERSIONS.latestVersion(); version++) {
      try (KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
        wire.write(KafkaWire.apiVersions(version, 7 + version));
        KafkaWire.Answer<ApiVersionsResponseData> answer = wire.readApiVersions(version);
        assertThat(answer.correlationId()).isEqualTo(7 + version);
        assertThat(answer.bytesLeft()).as("the whole frame is the answer at v" + version).isZero();
        assertThat(answer.data().errorCode()).isEqualTo(Errors.NONE.code());
        ApiVersion own = answer.data().apiKeys().find(ApiKeys.API_VERSIONS.id);
        assertThat(own).isNotNull();
        assertThat(own.minVersion()).isEqualTo(ApiKeys.API_VERSIONS.oldestVersion());
        assertThat(own.maxVersion()).isEqualTo(ApiKeys.API_VERSIONS.latestVersion());
      }
    }
  }
}
