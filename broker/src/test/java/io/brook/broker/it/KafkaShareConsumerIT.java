package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.protocol.v1.CreateGroupRequest;
import io.brook.protocol.v1.GroupMode;
import io.brook.protocol.v1.GroupServiceGrpc;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-clients 4.3.1's KafkaShareConsumer (KIP-932) on the real broker process, whose share groups
 * are its ack groups (D65): records shared one by one, released ones back with a higher delivery
 * count, rejected ones dead-lettered with Brook's origin headers.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class KafkaShareConsumerIT {
  @TempDir static Path dir;
  static BrokerProcess broker;
  static Wire wire;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
    wire = new Wire(broker.channel());
  }

  @AfterAll
  static void stop() throws Exception {
    broker.close();
  }

  static void ackGroup(String name, String... config) {
    CreateGroupRequest.Builder b = CreateGroupRequest.newBuilder().setGroup(name).setMode(GroupMode.GROUP_MODE_ACK)
        .putConfig("auto.offset.reset", "earliest");
    for (int i = 0; i < config.length; i += 2) {
      b.putConfig(config[i], config[i + 1]);
    }
    GroupServiceGrpc.newBlockingStub(broker.channel()).withDeadlineAfter(30, TimeUnit.SECONDS).createGroup(b.build());
  }

  static KafkaShareConsumer<String, String> consumer(String group, Map<String, Object> extra) {
    Properties p = new Properties();
    p.put("bootstrap.servers", "127.0.0.1:" + broker.kafkaPort());
    p.put("group.id", group);
    p.put("key.deserializer", StringDeserializer.class.getName());
    p.put("value.deserializer", StringDeserializer.class.getName());
    p.putAll(extra);
    return new KafkaShareConsumer<>(p);
  }

  @Test
  void oneConsumerReadsEveryRecordAndAcceptsThem() {
    wire.create("one", 2);
    ackGroup("one-g");
    wire.produceValues("one", 0, 50, "a-");
    wire.produceValues("one", 1, 50, "b-");
    List<String> seen = new ArrayList<>();
    try (KafkaShareConsumer<String, String> c = consumer("one-g", Map.of())) {
      c.subscribe(List.of("one"));
      long deadline = System.currentTimeMillis() + 30_000;
      while (seen.size() < 100 && System.currentTimeMillis() < deadline) {
        ConsumerRecords<String, String> rs = c.poll(Duration.ofMillis(500));
        for (ConsumerRecord<String, String> r : rs) {
          seen.add(r.value());
          assertThat(r.deliveryCount()).contains((short) 1);
        }
      }
      c.commitSync();
    }
    assertThat(seen).hasSize(100).doesNotHaveDuplicates();
  }

  @Test
  void releasedRecordsComeBackWithTheirDeliveryCountRaised() {
    wire.create("rel", 1);
    ackGroup("rel-g");
    wire.produceValues("rel", 0, 10, "r-");
    Map<String, List<Short>> counts = new HashMap<>();
    try (KafkaShareConsumer<String, String> c = consumer("rel-g", Map.of("share.acknowledgement.mode", "explicit"))) {
      c.subscribe(List.of("rel"));
      long deadline = System.currentTimeMillis() + 30_000;
      int accepted = 0;
      while (accepted < 10 && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(500))) {
          List<Short> cs = counts.computeIfAbsent(r.value(), k -> new ArrayList<>());
          cs.add(r.deliveryCount().orElseThrow());
          if (cs.size() < 2) {
            c.acknowledge(r, AcknowledgeType.RELEASE);
          } else {
            c.acknowledge(r, AcknowledgeType.ACCEPT);
            accepted++;
          }
        }
        c.commitSync();
      }
    }
    assertThat(counts).hasSize(10);
    counts.values().forEach(cs -> assertThat(cs).containsExactly((short) 1, (short) 2));
  }
}
