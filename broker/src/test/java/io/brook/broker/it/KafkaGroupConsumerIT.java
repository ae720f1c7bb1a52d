package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.protocol.v1.CommittedOffset;
import io.brook.protocol.v1.FetchCommittedOffsetsRequest;
import io.brook.protocol.v1.GroupServiceGrpc;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-clients 4.3.1 consumers with {@code group.protocol=consumer} (KIP-848: ConsumerGroupHeartbeat,
 * the broker assigns) on the real broker process: members join, leave and die, partitions move with
 * revocation before reassignment, every record is seen once in total, their commits are Brook's
 * committed offsets, and Admin sees a group of type CONSUMER. The broker's KIP-848 heartbeat interval
 * and session timeout are lowered so that a dead member is noticed within seconds.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class KafkaGroupConsumerIT {
  static final long SESSION_MS = 4_000;
  @TempDir static Path dir;
  static BrokerProcess broker;
  static Wire wire;
  static Admin admin;
  /** The consumers of the running test: a wait ends at once when one of them failed. */
  static final java.util.Queue<Member> running = new java.util.concurrent.ConcurrentLinkedQueue<>();

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"), "--set", "group.consumer.heartbeat.interval.ms=300",
        "--set", "group.consumer.session.timeout.ms=" + SESSION_MS);
    wire = new Wire(broker.channel());
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap());
    admin = Admin.create(p);
  }

  @AfterAll
  static void stop() throws Exception {
    if (admin != null) {
      admin.close();
    }
    broker.close();
  }

  /** A test that failed midway leaves its consumers running: they stop, and the next test does not see them. */
  @AfterEach
  void stopLeftovers() {
    running.forEach(m -> m.stop = true);
    running.clear();
  }

  static String bootstrap() {
    return "127.0.0.1:" + broker.kafkaPort();
  }

  static Properties consumerConfig(String group, Map<String, Object> extra) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap());
    p.put("group.id", group);
    p.put("group.protocol", "consumer");
    p.put("enable.auto.commit", false);
    p.put("auto.offset.reset", "earliest");
    p.put("max.poll.interval.ms", 30_000);
    p.putAll(extra);
    return p;
  }

  /** Values "prefix0".."prefix(n-1)", spread over the partitions round robin. */
  static Set<String> produce(String topic, int partitions, String prefix, int n) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap());
    p.put("acks", "all");
    Set<String> values = new HashSet<>();
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
        new ByteArraySerializer())) {
      for (int i = 0; i < n; i++) {
        String v = prefix + i;
        values.add(v);
        producer.send(new ProducerRecord<>(topic, i % partitions, null, v.getBytes(StandardCharsets.UTF_8)));
      }
      producer.flush();
    }
    return values;
  }

  /**
   * A consumer on a thread of its own: polls, counts each value it gets in {@code seen}, and commits
   * synchronously after each poll, so what it gives up in a rebalance was committed.
   */
  static final class Member implements AutoCloseable {
    final Thread thread;
    volatile Set<TopicPartition> assignment = Set.of();
    volatile boolean stop;
    volatile Throwable failure;

    Member(String group, String topic, Map<String, String> seen, Map<String, Object> extra) {
      thread = new Thread(() -> {
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(consumerConfig(group, extra),
            new StringDeserializer(), new StringDeserializer())) {
          c.subscribe(List.of(topic));
          String me = Thread.currentThread().getName();
          while (!stop) {
            var records = c.poll(Duration.ofMillis(100));
            records.forEach(r -> seen.merge(r.value(), me, (a, b) -> a + "," + b));
            if (!records.isEmpty()) {
              c.commitSync();
            }
            assignment = Set.copyOf(c.assignment());
          }
        } catch (Throwable t) {
          failure = t;
        }
      }, "member-" + group + "-" + System.nanoTime());
      running.add(this);
      thread.start();
    }

    @Override
    public void close() throws InterruptedException {
      running.remove(this);
      stop = true;
      thread.join(30_000);
      assertThat(thread.isAlive()).as("the consumer closed").isFalse();
      assertThat(failure).as("the consumer's loop failed").isNull();
    }
  }

  static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!condition.getAsBoolean()) {
      for (Member m : running) {
        assertThat(m.failure).as("a consumer failed while waiting until %s", what).isNull();
      }
      assertThat(System.nanoTime()).as("timed out waiting until %s", what).isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  /** The members split the topic's partitions between them: each has some, none twice, none missing. */
  static boolean splitBetween(int partitions, Member... members) {
    List<TopicPartition> all = new ArrayList<>();
    for (Member m : members) {
      if (m.assignment.isEmpty()) {
        return false;
      }
      all.addAll(m.assignment);
    }
    return all.size() == partitions && new HashSet<>(all).size() == partitions;
  }

  static ConsumerGroupDescription describe(String group) throws Exception {
    return admin.describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS).get(group);
  }

  static Map<Integer, Long> committedOverGrpc(String group) {
    Map<Integer, Long> out = new HashMap<>();
    for (CommittedOffset c : GroupServiceGrpc.newBlockingStub(broker.channel())
        .fetchCommittedOffsets(FetchCommittedOffsetsRequest.newBuilder().setGroup(group).build()).getOffsetsList()) {
      out.put(c.getPartition(), c.getOffset());
    }
    return out;
  }

  @Test
  void consumersShareATopicThroughJoinsAndALeaveSeeingEveryRecordOnceAndCommittingBrooksOffsets() throws Exception {
    String topic = "orders";
    String group = "billing";
    wire.create(topic, 4);
    Map<String, String> seen = new ConcurrentHashMap<>();
    Set<String> produced = new HashSet<>(produce(topic, 4, "a", 400));
    Member m1 = new Member(group, topic, seen, Map.of());
    Member m2 = new Member(group, topic, seen, Map.of());
    await("two members split the partitions", () -> splitBetween(4, m1, m2));
    await("every record was seen", () -> seen.keySet().containsAll(produced));

    ConsumerGroupDescription g = describe(group);
    assertThat(g.type()).isEqualTo(GroupType.CONSUMER);
    assertThat(g.partitionAssignor()).isEqualTo("uniform");
    assertThat(g.members()).hasSize(2);
    assertThat(g.groupState()).isIn(GroupState.STABLE, GroupState.RECONCILING);

    Member m3 = new Member(group, topic, seen, Map.of());
    await("three members split the partitions", () -> splitBetween(4, m1, m2, m3));
    produced.addAll(produce(topic, 4, "b", 400));
    await("every record was seen", () -> seen.keySet().containsAll(produced));

    m1.close(); // leaves the group (epoch -1): its partitions go to the others
    await("two members split the partitions again", () -> splitBetween(4, m2, m3));
    produced.addAll(produce(topic, 4, "c", 400));
    await("every record was seen", () -> seen.keySet().containsAll(produced));
    m2.close();
    m3.close();

    // Every record seen once and committed, as Brook's own offsets: 300 per partition, seen by gRPC and by Admin.
    assertSeenOnceAndCommitted(group, seen, produced);
    Map<TopicPartition, OffsetAndMetadata> overKafka = admin.listConsumerGroupOffsets(group)
        .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
    assertThat(overKafka.values()).extracting(OffsetAndMetadata::offset).containsOnly(300L).hasSize(4);
    await("the group is empty", () -> {
      try {
        return describe(group).groupState() == GroupState.EMPTY;
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
  }

  @Test
  void theRangeAssignorGivesContiguousRangesWhenTheConsumersAskForIt() throws Exception {
    String topic = "ranged";
    String group = "ranged-group";
    wire.create(topic, 4);
    Map<String, String> seen = new ConcurrentHashMap<>();
    Map<String, Object> range = Map.of("group.remote.assignor", "range");
    try (Member m1 = new Member(group, topic, seen, range); Member m2 = new Member(group, topic, seen, range)) {
      await("two members split the partitions", () -> splitBetween(4, m1, m2));
      ConsumerGroupDescription g = describe(group);
      assertThat(g.type()).isEqualTo(GroupType.CONSUMER);
      assertThat(g.partitionAssignor()).isEqualTo("range");
      Set<Set<Integer>> ranges = g.members().stream().map(MemberDescription::assignment)
          .map(a -> a.topicPartitions().stream().map(TopicPartition::partition).collect(Collectors.toSet()))
          .collect(Collectors.toSet());
      assertThat(ranges).containsExactlyInAnyOrder(Set.of(0, 1), Set.of(2, 3));
    }
  }

  @Test
  void aKilledConsumersPartitionsGoToTheSurvivorOnceItsSessionEnds() throws Exception {
    String topic = "killed";
    String group = "killed-group";
    wire.create(topic, 4);
    Map<String, String> seen = new ConcurrentHashMap<>();
    Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
        System.getProperty("java.class.path"), KafkaGroupConsumerChild.class.getName(), bootstrap(), group, topic)
        .redirectErrorStream(true).redirectOutput(dir.resolve("child.log").toFile()).start();
    try (Member survivor = new Member(group, topic, seen, Map.of())) {
      await("the child and the survivor split the partitions",
          () -> survivor.assignment.size() == 2 && memberCount(group) == 2);
      child.destroyForcibly().waitFor(); // SIGKILL: no leave, its heartbeats stop
      await("the survivor has every partition", () -> survivor.assignment.size() == 4);
      assertThat(memberCount(group)).isEqualTo(1);
      Set<String> produced = produce(topic, 4, "k", 200);
      await("the survivor saw every record produced after the kill", () -> seen.keySet().containsAll(produced));
    } finally {
      child.destroyForcibly();
    }
  }

  /**
   * Kafka 4.3's group.consumer.migration.policy (bidirectional): two classic consumers make a classic
   * group; a KIP-848 consumer joining turns it into a KIP-848 group where the broker assigns all three
   * (the classic ones hear it as a rebalance); when it leaves, the group is classic again. Every record
   * is seen once and committed as Brook's offsets throughout.
   */
  @Test
  void classicAndKip848ConsumersShareOneGroupAsItUpgradesAndDowngrades() throws Exception {
    String topic = "mixed";
    String group = "mixed-group";
    wire.create(topic, 4);
    Map<String, String> seen = new ConcurrentHashMap<>();
    Set<String> produced = new HashSet<>(produce(topic, 4, "a", 400));
    Map<String, Object> classic = Map.of("group.protocol", "classic", "heartbeat.interval.ms", 500,
        "session.timeout.ms", 10_000);
    try (Member c1 = new Member(group, topic, seen, classic); Member c2 = new Member(group, topic, seen, classic)) {
      await("two classic members split the partitions", () -> splitBetween(4, c1, c2));
      assertThat(describe(group).type()).isEqualTo(GroupType.CLASSIC);
      await("every record was seen", () -> seen.keySet().containsAll(produced));

      try (Member k = new Member(group, topic, seen, Map.of())) {
        await("the classic members and the KIP-848 one split the partitions", () -> splitBetween(4, c1, c2, k));
        ConsumerGroupDescription mixed = describe(group);
        assertThat(mixed.type()).isEqualTo(GroupType.CONSUMER);
        assertThat(mixed.members()).extracting(m -> m.upgraded().orElse(null))
            .containsExactlyInAnyOrder(false, false, true);
        produced.addAll(produce(topic, 4, "b", 400));
        await("every record was seen", () -> seen.keySet().containsAll(produced));
      } // the KIP-848 member leaves: back to classic

      await("the classic members split the partitions again", () -> splitBetween(4, c1, c2)
          && describeType(group) == GroupType.CLASSIC);
      produced.addAll(produce(topic, 4, "c", 400));
      await("every record was seen", () -> seen.keySet().containsAll(produced));
    }
    assertSeenOnceAndCommitted(group, seen, produced);
  }

  /** Every record produced was seen by exactly one member, and the 4 partitions are committed to 300 each. */
  static void assertSeenOnceAndCommitted(String group, Map<String, String> seen, Set<String> produced) {
    assertThat(seen.keySet()).isEqualTo(produced);
    assertThat(seen.entrySet().stream().filter(e -> e.getValue().contains(",")).map(Map.Entry::getKey).toList())
        .as("records seen by more than one member").isEmpty();
    assertThat(committedOverGrpc(group)).isEqualTo(Map.of(0, 300L, 1, 300L, 2, 300L, 3, 300L));
  }

  static GroupType describeType(String group) {
    try {
      return describe(group).type();
    } catch (Exception e) {
      return null;
    }
  }

  static int memberCount(String group) {
    try {
      return describe(group).members().size();
    } catch (Exception e) {
      return -1; // not there yet
    }
  }

  @Test
  void theGroupsTypeAndMembersShowInBrooksOwnDescribe() throws Exception {
    String topic = "shown";
    String group = "shown-group";
    wire.create(topic, 2);
    Map<String, String> seen = new ConcurrentHashMap<>();
    try (Member m = new Member(group, topic, seen, Map.of("client.id", "shown-client"))) {
      await("the member has both partitions", () -> m.assignment.size() == 2);
      var d = GroupServiceGrpc.newBlockingStub(broker.channel())
          .describeGroup(io.brook.protocol.v1.DescribeGroupRequest.newBuilder().setGroup(group).build()).getGroup();
      assertThat(d.getMembersList()).hasSize(1);
      assertThat(d.getMembers(0).getClientId()).isEqualTo("shown-client");
      assertThat(d.getMembers(0).getAssignmentList().stream().mapToInt(t -> t.getPartitionsCount()).sum()).isEqualTo(2);
    }
  }
}
