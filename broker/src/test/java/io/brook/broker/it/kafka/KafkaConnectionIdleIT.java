package io.brook.broker.it.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.it.BrokerProcess;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka.connections.max.idle.ms: a connection with no traffic is closed by the broker (as Kafka's
 * connections.max.idle.ms), so idle or abandoned connections do not pile up; the broker serves on.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KafkaConnectionIdleIT {
  @TempDir static Path dir;
  static BrokerProcess broker;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"), Map.of(), List.of(), "--set",
        "kafka.connections.max.idle.ms=1000", "--set", "group.initial.rebalance.delay.ms=3000");
  }

  @AfterAll
  static void stop() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  /** A JoinGroup held for the first rebalance's delay (3 s) outlasts the idle time (1 s): the broker owes it. */
  @Test
  void aConnectionWaitingForAHeldJoinGroupIsNotIdle() throws Exception {
    try (KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
      JoinGroupRequestData join = new JoinGroupRequestData().setGroupId("held").setMemberId("")
          .setSessionTimeoutMs(10_000).setRebalanceTimeoutMs(30_000).setProtocolType("consumer");
      join.protocols().add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range")
          .setMetadata(new byte[0]));
      wire.write(KafkaWire.frame(ApiKeys.JOIN_GROUP, (short) 3, 7, join)); // v3: no MEMBER_ID_REQUIRED step
      JoinGroupResponseData answer = (JoinGroupResponseData) RawKafka.read(wire, ApiKeys.JOIN_GROUP, (short) 3, 7);
      assertThat(answer.errorCode()).isEqualTo(Errors.NONE.code());
      assertThat(answer.generationId()).isEqualTo(1);
    }
  }

  @Test
  void anIdleConnectionIsClosedByTheBroker() throws Exception {
    try (KafkaWire idle = new KafkaWire(broker.kafkaPort())) {
      idle.write(KafkaWire.apiVersions((short) 3, 1));
      assertThat(idle.readApiVersions((short) 3).correlationId()).isEqualTo(1);
      assertThat(idle.closedByBroker()).as("closed after a second without traffic (the read waits up to 30 s)")
          .isTrue();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (broker.metric("brook_kafka_connections") > 0 && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertThat(broker.metric("brook_kafka_connections")).isZero();
    try (KafkaWire fresh = new KafkaWire(broker.kafkaPort())) {
      fresh.write(KafkaWire.apiVersions((short) 3, 2));
      assertThat(fresh.readApiVersions((short) 3).correlationId()).isEqualTo(2);
    }
  }
}
