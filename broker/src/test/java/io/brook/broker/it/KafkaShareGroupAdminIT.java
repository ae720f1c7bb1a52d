package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.admin.ShareMemberDescription;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-clients 4.3.1's Admin share-group calls on Brook's ack groups (D67), against the real broker:
 * a gRPC ack member is a share member assigned every partition of its topics; start offsets are the
 * windows' starts, lag what is not settled up to the log end; alter, delete-offsets and delete are
 * refused while a member is connected and work once none is; Kafka's errors for unknown groups and
 * topics and for a group that is not a share group.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class KafkaShareGroupAdminIT {
  static final String TOPIC = "jobs";
  static final int PER_PARTITION = 5;

  @TempDir static Path dir;
  static BrokerProcess broker;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
    try (Admin admin = admin()) {
      admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1), new NewTopic("other", 1, (short) 1))).all().get();
    }
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(
        Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.kafkaAddress()), new StringSerializer(),
        new StringSerializer())) {
      for (int i = 0; i < 2 * PER_PARTITION; i++) {
        producer.send(new ProducerRecord<>(TOPIC, i % 2, "k" + i, "v" + i));
      }
      producer.flush();
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (broker != null) {
      assertThat(broker.isAlive()).isTrue();
      broker.close();
    }
  }

  static Admin admin() {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.kafkaAddress(),
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000));
  }

  static ShareGroupDescription describe(Admin admin, String group) throws Exception {
    return admin.describeShareGroups(List.of(group)).describedGroups().get(group).get();
  }

  static Map<TopicPartition, SharePartitionOffsetInfo> offsets(Admin admin, String group) throws Exception {
    return admin.listShareGroupOffsets(Map.of(group, new ListShareGroupOffsetsSpec())).partitionsToOffsetInfo(group)
        .get();
  }

  /** "start/lag" per partition of TOPIC, by partition. */
  static List<String> startsAndLags(Map<TopicPartition, SharePartitionOffsetInfo> offsets) {
    List<String> out = new ArrayList<>();
    for (int p = 0; p < 2; p++) {
      SharePartitionOffsetInfo o = offsets.get(new TopicPartition(TOPIC, p));
      out.add(o == null ? "none" : o.startOffset() + "/" + o.lag().orElse(-1L));
    }
    return out;
  }

  static TopicPartition tp(int p) {
    return new TopicPartition(TOPIC, p);
  }

  static Throwable cause(ThrowingCall call) {
    try {
      call.run();
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (Exception e) {
      return e;
    }
    throw new AssertionError("no error");
  }

  interface ThrowingCall {
    void run() throws Exception;
  }

  @Test
  void anAckMemberIsAShareMemberAndOffsetsMoveOnlyOnceItLeft() throws Exception {
    String group = "workers";
    try (Admin admin = admin()) {
      // The group made at the log start (as kafka-share-groups --reset-offsets --to-earliest makes it).
      admin.alterShareGroupOffsets(group, Map.of(tp(0), 0L, tp(1), 0L)).all().get();
      assertThat(startsAndLags(offsets(admin, group))).containsExactly("0/5", "0/5");
      AckStream member = new AckStream(broker.channel(), group, "worker-1", 100, TOPIC);
      List<AckStream.Got> got = new ArrayList<>();
      while (got.size() < 2 * PER_PARTITION) {
        AckStream.Got g = member.records.poll(30, TimeUnit.SECONDS);
        assertThat(g).as("records delivered to the ack member").isNotNull();
        got.add(g);
      }
      // Partition 0 settled up to offset 2 (3 records), partition 1 offsets 0 and 3: its window starts at 1.
      member.ack(AckStream.range(TOPIC, 0, 0, 2), AckStream.range(TOPIC, 1, 0, 0), AckStream.range(TOPIC, 1, 3, 3));
      awaitStarts(admin, group, List.of("3/2", "1/3"));

      ShareGroupDescription d = describe(admin, group);
      assertThat(d.groupState()).isEqualTo(GroupState.STABLE);
      assertThat(d.members()).hasSize(1);
      ShareMemberDescription m = d.members().iterator().next();
      assertThat(m.consumerId()).isEqualTo("worker-1");
      assertThat(m.clientId()).isEqualTo("worker-1");
      assertThat(m.host()).contains("127.0.0.1");
      assertThat(m.assignment().topicPartitions()).containsExactlyInAnyOrder(tp(0), tp(1));

      // A connected member: Kafka refuses every change (the group is not empty).
      assertThat(cause(() -> admin.alterShareGroupOffsets(group, Map.of(tp(0), 0L)).all().get()))
          .isInstanceOf(GroupNotEmptyException.class);
      assertThat(cause(() -> admin.deleteShareGroupOffsets(group, Set.of(TOPIC)).all().get()))
          .isInstanceOf(GroupNotEmptyException.class);
      assertThat(cause(() -> admin.deleteShareGroups(List.of(group)).all().get()))
          .isInstanceOf(GroupNotEmptyException.class);
      assertThat(startsAndLags(offsets(admin, group))).containsExactly("3/2", "1/3");

      member.close();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (describe(admin, group).groupState() != GroupState.EMPTY && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      d = describe(admin, group);
      assertThat(d.groupState()).isEqualTo(GroupState.EMPTY);
      assertThat(d.members()).isEmpty();

      admin.alterShareGroupOffsets(group, Map.of(tp(0), 1L, tp(1), 4L)).all().get();
      assertThat(startsAndLags(offsets(admin, group))).containsExactly("1/4", "4/1");
      // Named partitions: one of an unknown topic is refused, the others answered.
      Map<TopicPartition, SharePartitionOffsetInfo> some = admin.listShareGroupOffsets(Map.of(group,
          new ListShareGroupOffsetsSpec().topicPartitions(List.of(tp(1), new TopicPartition("nope", 0)))))
          .partitionsToOffsetInfo(group).get();
      assertThat(some).containsOnlyKeys(tp(1));
      assertThat(some.get(tp(1)).startOffset()).isEqualTo(4);

      admin.deleteShareGroupOffsets(group, Set.of(TOPIC)).all().get();
      assertThat(offsets(admin, group)).isEmpty();
      // worker-1 still holds leases between streams: the group's tick must not make its windows again.
      Thread.sleep(1500);
      assertThat(offsets(admin, group)).isEmpty();
      admin.deleteShareGroups(List.of(group)).all().get();
      assertThat(admin.listGroups().all().get().stream().map(GroupListing::groupId)).doesNotContain(group);
      assertThat(cause(() -> describe(admin, group))).isInstanceOf(GroupIdNotFoundException.class);
    }
  }

  static void awaitStarts(Admin admin, String group, List<String> want) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!startsAndLags(offsets(admin, group)).equals(want) && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertThat(startsAndLags(offsets(admin, group))).isEqualTo(want);
  }

  @Test
  void kafkasErrorsForUnknownGroupsTopicsAndNonShareGroups() throws Exception {
    try (Admin admin = admin()) {
      assertThat(cause(() -> describe(admin, "nosuch"))).isInstanceOf(GroupIdNotFoundException.class)
          .hasMessage("Group nosuch not found.");
      assertThat(cause(() -> offsets(admin, "nosuch"))).isInstanceOf(GroupIdNotFoundException.class);
      assertThat(cause(() -> admin.deleteShareGroupOffsets("nosuch", Set.of(TOPIC)).all().get()))
          .isInstanceOf(GroupIdNotFoundException.class);

      // An offset-mode group (a classic consumer group to Kafka) is not a share group.
      admin.alterConsumerGroupOffsets("billing", Map.of(tp(0), new org.apache.kafka.clients.consumer
          .OffsetAndMetadata(1))).all().get();
      assertThat(cause(() -> describe(admin, "billing"))).isInstanceOf(GroupIdNotFoundException.class)
          .hasMessage("Group billing is not a share group.");
      assertThat(cause(() -> admin.alterShareGroupOffsets("billing", Map.of(tp(0), 0L)).all().get()))
          .isInstanceOf(GroupIdNotFoundException.class);
      assertThat(cause(() -> admin.deleteShareGroupOffsets("billing", Set.of(TOPIC)).all().get()))
          .isInstanceOf(GroupIdNotFoundException.class);

      // Alter creates an absent group, as Kafka's does; an unknown topic is refused for its partitions only.
      var altered = admin.alterShareGroupOffsets("fresh", Map.of(tp(0), 2L, new TopicPartition("nope", 0), 0L));
      altered.partitionResult(tp(0)).get();
      assertThat(cause(() -> altered.partitionResult(new TopicPartition("nope", 0)).get()))
          .isInstanceOf(UnknownTopicOrPartitionException.class);
      assertThat(startsAndLags(offsets(admin, "fresh"))).containsExactly("2/3", "none");
      assertThat(describe(admin, "fresh").groupState()).isEqualTo(GroupState.EMPTY);

      // Delete-offsets: an unknown topic, and one the group has no offsets on, refused per topic.
      var deleted = admin.deleteShareGroupOffsets("fresh", Set.of(TOPIC, "nope", "other"));
      deleted.topicResult(TOPIC).get();
      assertThat(cause(() -> deleted.topicResult("nope").get())).isInstanceOf(UnknownTopicOrPartitionException.class);
      assertThat(cause(() -> deleted.topicResult("other").get())).isInstanceOf(UnknownTopicOrPartitionException.class)
          .hasMessage("There is no offset information to delete.");
    }
  }
}
