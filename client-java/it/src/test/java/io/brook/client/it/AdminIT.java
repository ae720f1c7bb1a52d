package io.brook.client.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.it.BrokerProcess;
import io.brook.client.ack.AckConsumer;
import io.brook.client.ack.AckConsumerConfig;
import io.brook.client.admin.BrookAdmin;
import io.brook.client.admin.GroupInfo;
import io.brook.client.admin.GroupListing;
import io.brook.client.admin.GroupMode;
import io.brook.client.admin.GroupOffset;
import io.brook.client.admin.GroupPartitionInfo;
import io.brook.client.admin.GroupState;
import io.brook.client.admin.NewGroup;
import io.brook.client.admin.NewTopic;
import io.brook.client.admin.OffsetPosition;
import io.brook.client.admin.PartitionInfo;
import io.brook.client.admin.TopicInfo;
import io.brook.client.errors.BrokerUnavailableException;
import io.brook.client.errors.GroupExistsException;
import io.brook.client.errors.GroupNotEmptyException;
import io.brook.client.errors.InvalidRequestException;
import io.brook.client.errors.OffsetOutOfRangeException;
import io.brook.client.errors.TopicExistsException;
import io.brook.client.errors.UnknownGroupException;
import io.brook.client.errors.UnknownTopicException;
import io.brook.protocol.v1.CommitOffsetsRequest;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.OffsetCommit;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The admin client against the real broker: every call, and its errors. Each test uses names of its own. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AdminIT {
  @TempDir static Path dir;
  static BrokerProcess broker;
  static BrookAdmin admin;
  static TestData data;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
    admin = BrookAdmin.builder().broker(broker.address()).requestTimeout(Duration.ofSeconds(20)).build();
    data = new TestData(broker.channel());
  }

  @AfterAll
  static void stop() throws Exception {
    admin.close();
    broker.close();
  }

  @Test
  void topicsAreCreatedListedDescribedAlteredGrownAndDeleted() {
    TopicInfo created = admin.createTopic(NewTopic.of("orders").withPartitions(3).withConfig("retention.ms", "3600000"));
    assertThat(created.name()).isEqualTo("orders");
    assertThat(created.partitionCount()).isEqualTo(3);
    assertThat(created.topicId()).isNotEmpty();
    assertThat(created.config()).containsEntry("retention.ms", "3600000").containsKey("max.message.bytes");
    assertThat(created.createdAtMs()).isPositive();

    data.produceValues("orders", 1, 7, "v");
    assertThat(admin.listTopics()).extracting(TopicInfo::name).contains("orders");
    TopicInfo described = admin.describeTopic("orders");
    assertThat(described.topicId()).isEqualTo(created.topicId());
    assertThat(described.partitions()).extracting(PartitionInfo::partition).containsExactly(0, 1, 2);
    PartitionInfo p1 = described.partitions().get(1);
    assertThat(p1.endOffset()).isEqualTo(7);
    assertThat(p1.records()).isEqualTo(7);
    assertThat(p1.sizeBytes()).isPositive();
    assertThat(p1.segmentRoll()).isNotEmpty();

    TopicInfo altered = admin.alterTopicConfig("orders", Map.of("retention.bytes", "1048576"), List.of("retention.ms"));
    assertThat(altered.config()).containsEntry("retention.bytes", "1048576").containsEntry("retention.ms",
        "604800000");
    TopicInfo grown = admin.createPartitions("orders", 5);
    assertThat(grown.partitionCount()).isEqualTo(5);
    assertThat(grown.partitions().get(1).endOffset()).as("existing partitions keep their records").isEqualTo(7);

    admin.deleteTopic("orders");
    assertThat(admin.listTopics()).extracting(TopicInfo::name).doesNotContain("orders");
    assertThatThrownBy(() -> admin.describeTopic("orders")).isInstanceOf(UnknownTopicException.class);
  }

  @Test
  void topicErrorsAreTyped() {
    admin.createTopic(NewTopic.of("twice"));
    assertThatThrownBy(() -> admin.createTopic(NewTopic.of("twice"))).isInstanceOfSatisfying(
        TopicExistsException.class, e -> assertThat(e.reason()).isEqualTo("TOPIC_ALREADY_EXISTS"));
    assertThatThrownBy(() -> admin.describeTopic("nosuch")).isInstanceOfSatisfying(UnknownTopicException.class,
        e -> assertThat(e.reason()).isEqualTo("UNKNOWN_TOPIC"));
    assertThatThrownBy(() -> admin.deleteTopic("nosuch")).isInstanceOf(UnknownTopicException.class);
    assertThatThrownBy(() -> admin.createTopic(NewTopic.of("negative").withPartitions(-1)))
        .isInstanceOf(InvalidRequestException.class);
    assertThatThrownBy(() -> admin.createTopic(NewTopic.of("../etc"))).isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("invalid topic name");
    assertThatThrownBy(() -> admin.createTopic(NewTopic.of("badconfig").withConfig("retention.ms", "soon")))
        .isInstanceOf(InvalidRequestException.class);
    assertThatThrownBy(() -> admin.createPartitions("twice", 1)).as("never shrinks or stays")
        .isInstanceOf(InvalidRequestException.class);
    assertThatThrownBy(() -> admin.alterTopicConfig("nosuch", Map.of("retention.ms", "1"), List.of()))
        .isInstanceOf(UnknownTopicException.class);
  }

  @Test
  void groupsAreCreatedListedDescribedAlteredResetAndDeleted() {
    admin.createTopic(NewTopic.of("events").withPartitions(2));
    data.produceValues("events", 0, 10, "v");
    data.produceValues("events", 1, 4, "v");
    // An offset-mode group with commits made from outside (allowed while it has no members).
    GroupServiceGrpc.newBlockingStub(broker.channel()).withDeadlineAfter(20, TimeUnit.SECONDS)
        .commitOffsets(CommitOffsetsRequest.newBuilder().setGroup("readers")
            .addOffsets(OffsetCommit.newBuilder().setTopic("events").setPartition(0).setOffset(6))
            .addOffsets(OffsetCommit.newBuilder().setTopic("events").setPartition(1).setOffset(4)).build());
    assertThat(admin.listGroups()).contains(new GroupListing("readers", GroupMode.OFFSET, GroupState.EMPTY, 0, "none"));
    GroupInfo readers = admin.describeGroup("readers");
    assertThat(readers.mode()).isEqualTo(GroupMode.OFFSET);
    assertThat(readers.partitions()).extracting(GroupPartitionInfo::committedOffset).containsExactly(6L, 4L);
    assertThat(readers.partitions()).extracting(GroupPartitionInfo::lag).containsExactly(4L, 0L);
    assertThat(admin.listGroupOffsets("readers")).extracting(GroupOffset::offset).containsExactly(6L, 4L);

    List<GroupOffset> dry = admin.resetGroupOffsets("readers", OffsetPosition.earliest(), true);
    assertThat(dry).extracting(GroupOffset::offset).containsExactly(0L, 0L);
    assertThat(admin.listGroupOffsets("readers")).as("a dry run changes nothing").extracting(GroupOffset::offset)
        .containsExactly(6L, 4L);
    List<GroupOffset> one = admin.resetGroupOffsets("readers", OffsetPosition.offset(2),
        Map.of("events", List.of(0)), false);
    assertThat(one).singleElement().satisfies(o -> {
      assertThat(o.partition()).isZero();
      assertThat(o.offset()).isEqualTo(2);
      assertThat(o.error()).isNull();
    });
    assertThat(admin.listGroupOffsets("readers")).extracting(GroupOffset::offset).containsExactly(2L, 4L);
    List<GroupOffset> outOfRange = admin.resetGroupOffsets("readers", OffsetPosition.offset(9),
        Map.of("events", List.of()), false);
    assertThat(outOfRange).hasSize(2);
    assertThat(outOfRange.get(0).error()).as("partition 0 has 10 records").isNull();
    assertThat(outOfRange.get(1).error()).as("partition 1 has 4").isInstanceOf(OffsetOutOfRangeException.class);
    assertThat(admin.resetGroupOffsets("readers", OffsetPosition.latest(), false)).extracting(GroupOffset::offset)
        .containsExactly(10L, 4L);
    assertThat(admin.resetGroupOffsets("readers", OffsetPosition.timestamp(0), false))
        .extracting(GroupOffset::offset).containsExactly(0L, 0L);

    GroupInfo queue = admin.createGroup(NewGroup.ackMode("queue").withConfig("max.delivery.attempts", "3"));
    assertThat(queue.mode()).isEqualTo(GroupMode.ACK);
    assertThat(queue.state()).isEqualTo(GroupState.EMPTY);
    assertThat(queue.config()).containsEntry("max.delivery.attempts", "3").containsKey("ack.timeout.ms");
    GroupInfo altered = admin.alterGroupConfig("queue", Map.of("ack.timeout.ms", "5000"),
        List.of("max.delivery.attempts"));
    assertThat(altered.config()).containsEntry("ack.timeout.ms", "5000").containsEntry("max.delivery.attempts", "5");

    admin.deleteGroup("readers");
    admin.deleteGroup("queue");
    assertThat(admin.listGroups()).extracting(GroupListing::name).doesNotContain("readers", "queue");
    assertThatThrownBy(() -> admin.describeGroup("readers")).isInstanceOf(UnknownGroupException.class);
  }

  @Test
  void groupErrorsAreTypedAndAGroupWithMembersCannotBeResetOrDeleted() throws Exception {
    admin.createTopic(NewTopic.of("work"));
    admin.createGroup(NewGroup.ackMode("busy"));
    assertThatThrownBy(() -> admin.createGroup(NewGroup.ackMode("busy"))).isInstanceOf(GroupExistsException.class);
    assertThatThrownBy(() -> admin.createGroup(NewGroup.ackMode("badconfig").withConfig("ack.timeout.ms", "-3")))
        .isInstanceOf(InvalidRequestException.class);
    assertThatThrownBy(() -> admin.describeGroup("nosuch")).isInstanceOf(UnknownGroupException.class);
    assertThatThrownBy(() -> admin.deleteGroup("nosuch")).isInstanceOf(UnknownGroupException.class);

    try (AckConsumer<byte[], byte[]> member = AckConsumer.ofBytes(AckConsumerConfig.builder()
        .broker(broker.address()).group("busy").topics("work").build())) {
      GroupInfo g = null;
      for (int i = 0; i < 200; i++) {
        member.poll(Duration.ofMillis(10));
        g = admin.describeGroup("busy");
        // The broker lists the member as soon as it joined; the member learns its id a moment
        // later, from the stream (a fresh-clone CI run once compared the two in between).
        if (!g.members().isEmpty() && member.memberId() != null) {
          break;
        }
      }
      assertThat(g.members()).singleElement().satisfies(m -> {
        assertThat(m.memberId()).isEqualTo(member.memberId());
        assertThat(m.connected()).isTrue();
        assertThat(m.assignment()).containsOnlyKeys("work");
      });
      assertThat(g.state()).isEqualTo(GroupState.STABLE);
      assertThatThrownBy(() -> admin.deleteGroup("busy")).isInstanceOfSatisfying(GroupNotEmptyException.class,
          e -> assertThat(e.reason()).isEqualTo("GROUP_NOT_EMPTY"));
      assertThatThrownBy(() -> admin.resetGroupOffsets("busy", OffsetPosition.earliest(), false))
          .isInstanceOf(GroupNotEmptyException.class);
    }
    // The member leaves when its stream ends (the broker sees that a moment after close returns).
    for (int i = 0; i < 100; i++) {
      try {
        admin.deleteGroup("busy");
        break;
      } catch (GroupNotEmptyException stillThere) {
        Thread.sleep(100);
      }
    }
    assertThatThrownBy(() -> admin.describeGroup("busy")).isInstanceOf(UnknownGroupException.class);
  }

  @Test
  void anUnreachableBrokerIsARetriableTypedError() {
    try (BrookAdmin nowhere = BrookAdmin.builder().broker("127.0.0.1:1").requestTimeout(Duration.ofSeconds(5))
        .build()) {
      assertThatThrownBy(nowhere::listTopics).isInstanceOfSatisfying(BrokerUnavailableException.class,
          e -> assertThat(e.isRetriable()).isTrue());
    }
  }
}
