package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.protocol.v1.GroupPartition;
import io.brook.protocol.v1.Record;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Kafka share groups (KIP-932) as Brook's ack groups, with kafka-clients' KafkaShareConsumer against
 * the real broker process: records shared one by one between consumers and gRPC ack members,
 * rejected and exhausted records dead-lettered with their origin, expired locks handed to another
 * consumer, and acknowledgements that reach the broker whatever way the consumer sends them.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KafkaShareGroupIT {
  @TempDir static Path dir;
  static BrokerProcess broker;
  static Wire wire;
  static ShareKit kit;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
    wire = new Wire(broker.channel());
    kit = new ShareKit(broker);
  }

  @AfterAll
  static void stop() throws Exception {
    broker.close();
  }

  static String key(ConsumerRecord<?, ?> r) {
    return r.partition() + "/" + r.offset();
  }

  @Test
  void threeConsumersShareTheRecordsOneByOne() throws Exception {
    wire.create("three", 3);
    kit.ackGroup("three-g");
    int total = 300;
    Map<String, Integer> deliveries = new ConcurrentHashMap<>();
    AtomicInteger seen = new AtomicInteger();
    int[] perConsumer = new int[3];
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      List<Future<?>> runs = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        int me = i;
        runs.add(pool.submit(() -> {
          try (KafkaShareConsumer<String, String> c = kit.consumer("three-g", Map.of("max.poll.records", 10))) {
            c.subscribe(List.of("three"));
            long deadline = System.currentTimeMillis() + 40_000;
            while (seen.get() < total && System.currentTimeMillis() < deadline) {
              for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                assertThat(r.deliveryCount()).contains((short) 1);
                deliveries.merge(key(r), 1, Integer::sum);
                perConsumer[me]++;
                seen.incrementAndGet();
              }
            }
            c.commitSync(); // implicit mode: accepts the last poll's records
          }
          return null;
        }));
      }
      kit.awaitMembers("three-g", 3, 20_000);
      for (int b = 0; b < 30; b++) { // in small steps, so that every consumer's fetch can take some
        wire.produceValues("three", b % 3, 10, "v" + b + "-");
        Thread.sleep(20);
      }
      for (Future<?> f : runs) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(deliveries).hasSize(total);
    assertThat(deliveries.values()).allMatch(n -> n == 1);
    assertThat(perConsumer).as("records per consumer").doesNotContain(0);
    kit.awaitAllSettled("three-g", 10_000);
    assertThat(kit.describe("three-g").getPartitionsList()).allMatch(p -> p.getRedeliveries() == 0);
  }

  @Test
  void aRejectedRecordIsDeadLetteredWithItsOriginAndNotDeliveredAgain() throws Exception {
    wire.create("rej", 1);
    kit.ackGroup("rej-g");
    wire.produceValues("rej", 0, 5, "r-");
    try (KafkaShareConsumer<String, String> c = kit.consumer("rej-g", Map.of("share.acknowledgement.mode", "explicit"))) {
      c.subscribe(List.of("rej"));
      List<ConsumerRecord<String, String>> got = ShareKit.pollUntil(c, 5, 20_000,
          r -> c.acknowledge(r, r.offset() == 2 ? AcknowledgeType.REJECT : AcknowledgeType.ACCEPT));
      assertThat(got).hasSize(5);
      assertThat(c.commitSync(Duration.ofSeconds(10)).values()).allMatch(o -> o.isEmpty());
      assertThat(ShareKit.pollUntil(c, 1, 1_500, r -> c.acknowledge(r))).isEmpty(); // not delivered again
    }
    kit.awaitAllSettled("rej-g", 10_000);
    List<Record> dead = wire.readAll("rej-g.dlq", 0);
    assertThat(dead).singleElement().satisfies(r -> {
      assertThat(r.getValue().toStringUtf8()).isEqualTo("r-2");
      assertThat(AckModeIT.headers(r)).containsEntry("brook.dlq.topic", "rej").containsEntry("brook.dlq.partition", "0")
          .containsEntry("brook.dlq.offset", "2").containsEntry("brook.dlq.attempts", "1")
          .containsEntry("brook.dlq.reason", "rejected");
    });
    assertThat(kit.describe("rej-g").getPartitions(0).getDeadLetteredRecords()).isEqualTo(1);
  }

  @Test
  void aRecordReleasedUpToTheDeliveryLimitIsDeadLettered() throws Exception {
    wire.create("lim", 1);
    kit.ackGroup("lim-g", "max.delivery.attempts", "3");
    wire.produceValues("lim", 0, 1, "poison");
    List<Short> counts = new ArrayList<>();
    try (KafkaShareConsumer<String, String> c = kit.consumer("lim-g", Map.of("share.acknowledgement.mode", "explicit"))) {
      c.subscribe(List.of("lim"));
      // Polls on past the third delivery: a fourth must not come.
      ShareKit.pollUntil(c, 4, 6_000, r -> {
        counts.add(r.deliveryCount().orElseThrow());
        c.acknowledge(r, AcknowledgeType.RELEASE);
      });
    }
    assertThat(counts).containsExactly((short) 1, (short) 2, (short) 3);
    kit.awaitAllSettled("lim-g", 10_000);
    List<Record> dead = wire.readAll("lim-g.dlq", 0);
    assertThat(dead).singleElement().satisfies(r -> assertThat(AckModeIT.headers(r))
        .containsEntry("brook.dlq.topic", "lim").containsEntry("brook.dlq.offset", "0")
        .containsEntry("brook.dlq.attempts", "3").containsEntry("brook.dlq.reason", "max_delivery_attempts"));
  }

  @Test
  void recordsOfAConsumerThatNeverAcknowledgesGoToAnotherWhenTheirLockExpires() throws Exception {
    wire.create("exp", 1);
    kit.ackGroup("exp-g", "ack.timeout.ms", "2000");
    wire.produceValues("exp", 0, 10, "e-");
    try (KafkaShareConsumer<String, String> idle = kit.consumer("exp-g",
        Map.of("share.acknowledgement.mode", "explicit"))) {
      idle.subscribe(List.of("exp"));
      List<ConsumerRecord<String, String>> held = ShareKit.pollUntil(idle, 1, 20_000, r -> { });
      assertThat(held).isNotEmpty().allMatch(r -> r.deliveryCount().orElseThrow() == 1);
      // The idle consumer stays in the group (its heartbeats go on) but never acknowledges nor polls.
      Set<Long> heldOffsets = held.stream().map(ConsumerRecord::offset).collect(Collectors.toSet());
      long start = System.currentTimeMillis();
      try (KafkaShareConsumer<String, String> other = kit.consumer("exp-g", Map.of())) {
        other.subscribe(List.of("exp"));
        Map<Long, Short> got = new ConcurrentHashMap<>();
        ShareKit.pollUntil(other, 10, 20_000, r -> got.put(r.offset(), r.deliveryCount().orElseThrow()));
        other.commitSync();
        assertThat(got).hasSize(10);
        heldOffsets.forEach(o -> assertThat(got).containsEntry(o, (short) 2));
        assertThat(System.currentTimeMillis() - start).isGreaterThanOrEqualTo(1_500); // not before the lock ran out
      }
      kit.awaitAllSettled("exp-g", 10_000);
    }
  }

  @Test
  void aGrpcAckMemberAndAKafkaShareConsumerTakeFromOnePool() throws Exception {
    wire.create("mix", 2);
    kit.ackGroup("mix-g");
    int total = 400;
    Map<String, Integer> deliveries = new ConcurrentHashMap<>();
    AtomicInteger kafkaGot = new AtomicInteger();
    AtomicInteger grpcGot = new AtomicInteger();
    try (AckStream grpc = new AckStream(broker.channel(), "mix-g", "", 20, "mix");
        KafkaShareConsumer<String, String> kafka = kit.consumer("mix-g", Map.of("max.poll.records", 20))) {
      kafka.subscribe(List.of("mix"));
      kafka.poll(Duration.ofMillis(100)); // joins
      kit.awaitMembers("mix-g", 2, 20_000);
      for (int b = 0; b < 20; b++) {
        wire.produceValues("mix", b % 2, 20, "m" + b + "-");
      }
      long deadline = System.currentTimeMillis() + 40_000;
      while (deliveries.size() < total && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<String, String> r : kafka.poll(Duration.ofMillis(50))) {
          assertThat(r.deliveryCount()).contains((short) 1);
          deliveries.merge(key(r), 1, Integer::sum);
          kafkaGot.incrementAndGet();
        }
        List<AckStream.Got> got = new ArrayList<>();
        grpc.records.drainTo(got);
        for (AckStream.Got g : got) {
          assertThat(g.attempt()).isEqualTo(1);
          deliveries.merge(g.partition() + "/" + g.offset(), 1, Integer::sum);
          grpcGot.incrementAndGet();
        }
        if (!got.isEmpty()) {
          grpc.ack(got);
        }
      }
      kafka.commitSync();
      assertThat(deliveries).hasSize(total);
      assertThat(deliveries.values()).allMatch(n -> n == 1);
      assertThat(kafkaGot.get()).isPositive();
      assertThat(grpcGot.get()).isPositive();
      kit.awaitAllSettled("mix-g", 10_000);
      assertThat(grpc.failures).isEmpty();
      assertThat(kit.describe("mix-g").getPartitionsList()).allMatch(p -> p.getRedeliveries() == 0);
    }
  }

  /**
   * However the consumer acknowledges (implicitly by default, by its next poll or commitAsync, or
   * explicitly with commitSync, commitAsync or nothing), close() right after the last acknowledgement
   * settles every record. (A poll's records not acknowledged yet are released by close: Kafka's rule.)
   */
  @ParameterizedTest
  @ValueSource(strings = {"implicit-poll", "implicit-commitAsync", "explicit-commitSync", "explicit-commitAsync",
      "explicit-close"})
  void closeRightAfterTheLastAcknowledgementLosesNone(String how) throws Exception {
    String topic = "close-" + how;
    String group = topic + "-g";
    wire.create(topic, 2);
    kit.ackGroup(group);
    wire.produceValues(topic, 0, 30, "c-");
    wire.produceValues(topic, 1, 30, "d-");
    boolean explicit = how.startsWith("explicit");
    Map<String, Object> config = explicit ? Map.of("share.acknowledgement.mode", "explicit") : Map.of();
    KafkaShareConsumer<String, String> c = kit.consumer(group, config);
    try {
      c.subscribe(List.of(topic));
      List<ConsumerRecord<String, String>> got = ShareKit.pollUntil(c, 60, 20_000, r -> {
        if (explicit) {
          c.acknowledge(r, AcknowledgeType.ACCEPT);
        }
      });
      assertThat(got).hasSize(60);
      switch (how) {
        case "explicit-commitSync" -> assertThat(c.commitSync(Duration.ofSeconds(10)).values())
            .allMatch(o -> o.isEmpty());
        case "explicit-commitAsync", "implicit-commitAsync" -> c.commitAsync();
        case "implicit-poll" -> assertThat(c.poll(Duration.ZERO)).isEmpty(); // accepts the last poll's records
        default -> { } // explicit-close: close sends the acknowledgements
      }
    } finally {
      c.close(Duration.ofSeconds(10));
    }
    // No waiting for settlement: the acknowledgements must have reached the broker when close returned.
    assertThat(kit.describe(group).getPartitionsList()).allSatisfy(p -> {
      assertThat(p.getUnsettledRecords()).as("unsettled of " + p.getTopic() + "-" + p.getPartition()).isZero();
      assertThat(p.getCommittedOffset()).isEqualTo(30);
    });
    assertThat(kit.describe(group).getPartitionsList().stream().mapToLong(GroupPartition::getRedeliveries).sum())
        .isZero();
  }
}
