package io.brook.broker.it.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.it.BrokerProcess;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
        "kafka.connections.max.idle.ms=1000");
  }

  @AfterAll
  static void stop() throws Exception {
    if (broker != null) {
      broker.close();
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
