package io.brook.broker.it.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.it.BrokerProcess;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.DoublePredicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Kafka connection that closes releases what its requests hold at once: fetches waiting for records
 * (long polls, here asking to wait ten minutes) stop waiting, and nothing of its memory stays counted.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class KafkaConnectionCloseIT {
  static final int TEN_MINUTES = 600_000;
  @TempDir static Path dir;
  static BrokerProcess broker;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"), Map.of(), List.of(), "--set",
        "fetch.max.wait.ms=" + TEN_MINUTES);
    RawKafka.createTopic(broker.kafkaPort(), "quiet", 1);
  }

  @AfterAll
  static void stop() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  /** Fetches waiting for records now (the gauge counts both doors' long polls). */
  private static double waitingFetches() throws Exception {
    return broker.metric("brook_grpc_long_calls");
  }

  private static double await(DoublePredicate until) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    double now = waitingFetches();
    while (!until.test(now) && System.nanoTime() < deadline) {
      Thread.sleep(100);
      now = waitingFetches();
    }
    return now;
  }

  @Test
  void longPollsEndWithTheirConnection() throws Exception {
    assertThat(waitingFetches()).isZero();
    KafkaWire[] clients = new KafkaWire[5];
    for (int c = 0; c < clients.length; c++) {
      clients[c] = new KafkaWire(broker.kafkaPort());
      for (int i = 0; i < 3; i++) { // pipelined: all three wait, answered in order when they end
        clients[c].write(RawKafka.fetch(i, "quiet", 0, 1 << 20, TEN_MINUTES));
      }
    }
    int polls = clients.length * 3;
    assertThat(await(n -> n >= polls)).as("every fetch waits for records").isEqualTo(polls);
    for (KafkaWire c : clients) {
      c.close();
    }
    assertThat(await(n -> n == 0)).as("long polls left once their connections closed").isZero();
    assertThat(broker.metric("brook_outbound_bytes")).as("no answer memory held for them (the scrape's own aside)")
        .isLessThanOrEqualTo(1 << 20);
  }
}
