package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka share consumers (KIP-932) through crashes: the broker killed with SIGKILL and restarted on the
 * same Kafka port (accepted records never again, the others again, the consumer riding through), and a
 * consumer in a JVM of its own killed while it holds records (they come back when their lock runs out).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KafkaShareCrashIT {
  @TempDir Path dir;
  BrokerProcess broker;
  Wire wire;
  ShareKit kit;

  @BeforeEach
  void start() throws Exception {
    int kafkaPort;
    try (ServerSocket s = new ServerSocket(0)) {
      kafkaPort = s.getLocalPort();
    }
    // A fixed Kafka port: the restarted broker is where the consumer's bootstrap address says.
    broker = BrokerProcess.start(dir.resolve("data"), "--set", "kafka.listen=127.0.0.1:" + kafkaPort);
    wire = new Wire(broker.channel());
    kit = new ShareKit(broker);
  }

  @AfterEach
  void stop() throws Exception {
    broker.close();
  }

  @Test
  void afterKill9AcceptedRecordsNeverComeAgainAndTheOthersDoToTheSameConsumer() throws Exception {
    wire.create("t", 2);
    kit.ackGroup("g");
    wire.produceValues("t", 0, 50, "a-");
    wire.produceValues("t", 1, 50, "b-");
    try (KafkaShareConsumer<String, String> c = kit.consumer("g", Map.of("share.acknowledgement.mode", "explicit"))) {
      c.subscribe(List.of("t"));
      List<ConsumerRecord<String, String>> odd = new ArrayList<>();
      List<ConsumerRecord<String, String>> got = ShareKit.pollUntil(c, 100, 20_000, r -> {
        if (r.offset() % 2 == 0) {
          c.acknowledge(r, AcknowledgeType.ACCEPT);
        } else {
          odd.add(r);
        }
      });
      assertThat(got).hasSize(100);
      assertThat(c.commitSync(Duration.ofSeconds(10)).values()).allMatch(o -> o.isEmpty());
      assertThat(kit.unsettled("g")).isEqualTo(50);

      broker.kill9();
      broker.restart();
      wire = new Wire(broker.channel());

      // Explicit mode wants every record of a poll acknowledged before the next: the odd ones are
      // released, which the restarted broker (no session, no member) cannot apply anyway.
      odd.forEach(r -> c.acknowledge(r, AcknowledgeType.RELEASE));
      Map<String, Short> again = new HashMap<>();
      ShareKit.pollUntil(c, 50, 40_000, r -> {
        again.put(r.partition() + "/" + r.offset(), r.deliveryCount().orElseThrow());
        c.acknowledge(r, AcknowledgeType.ACCEPT);
      });
      c.commitSync(Duration.ofSeconds(10));
      assertThat(again).hasSize(50);
      assertThat(again.keySet()).allMatch(k -> Long.parseLong(k.substring(k.indexOf('/') + 1)) % 2 == 1);
      assertThat(again.values()).allMatch(n -> n == 2); // the first delivery was counted on disk
      assertThat(ShareKit.pollUntil(c, 1, 1_000, r -> c.acknowledge(r))).isEmpty();
    }
    kit.awaitAllSettled("g", 10_000);
  }

  @Test
  void recordsOfAKilledConsumerComeBackToASurvivorAfterTheLockDuration() throws Exception {
    wire.create("k", 1);
    kit.ackGroup("kg", "ack.timeout.ms", "2000", "share.session.timeout.ms", "30000");
    wire.produceValues("k", 0, 20, "k-");
    Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
        System.getProperty("java.class.path"), KafkaShareConsumerChild.class.getName(),
        "127.0.0.1:" + broker.kafkaPort(), "kg", "k").redirectErrorStream(true).start();
    Map<Long, Short> held = new HashMap<>();
    try {
      String line = CompletableFuture.supplyAsync(() -> heldLine(child)).get(30, TimeUnit.SECONDS);
      for (String e : line.substring("held ".length()).split(",")) {
        String[] oc = e.split(":");
        held.put(Long.parseLong(oc[0]), Short.parseShort(oc[1]));
      }
      assertThat(held).isNotEmpty().allSatisfy((o, n) -> assertThat(n).isEqualTo((short) 1));
      child.destroyForcibly().waitFor(); // SIGKILL: no acknowledgement, no leave
    } finally {
      child.destroyForcibly();
    }
    long killed = System.currentTimeMillis();
    Map<Long, Short> got = new HashMap<>();
    try (KafkaShareConsumer<String, String> survivor = kit.consumer("kg", Map.of())) {
      survivor.subscribe(List.of("k"));
      ShareKit.pollUntil(survivor, 20, 30_000, r -> got.put(r.offset(), r.deliveryCount().orElseThrow()));
      survivor.commitSync();
    }
    assertThat(got).hasSize(20);
    held.keySet().forEach(o -> assertThat(got).as("offset " + o).containsEntry(o, (short) 2));
    assertThat(System.currentTimeMillis() - killed).isLessThan(20_000); // the lock, not the 30 s session timeout
    kit.awaitAllSettled("kg", 10_000);
  }

  /** The child's "held ..." line, skipping kafka-clients' log lines. */
  private static String heldLine(Process child) {
    try {
      BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      for (String l = in.readLine(); l != null; l = in.readLine()) {
        if (l.startsWith("held ")) {
          return l;
        }
      }
      throw new AssertionError("the child ended without holding records");
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
