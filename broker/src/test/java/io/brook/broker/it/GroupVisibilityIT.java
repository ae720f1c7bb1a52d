package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.protocol.v1.AlterGroupConfigRequest;
import io.brook.protocol.v1.Boundary;
import io.brook.protocol.v1.CommitOffsetsRequest;
import io.brook.protocol.v1.CommittedOffset;
import io.brook.protocol.v1.CreateGroupRequest;
import io.brook.protocol.v1.DescribeGroupRequest;
import io.brook.protocol.v1.FetchCommittedOffsetsRequest;
import io.brook.protocol.v1.GroupDescription;
import io.brook.protocol.v1.GroupMode;
import io.brook.protocol.v1.GroupPartition;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.MemberDescription;
import io.brook.protocol.v1.OffsetCommit;
import io.brook.protocol.v1.Position;
import io.brook.protocol.v1.ResetGroupOffsetsRequest;
import io.brook.protocol.v1.TopicPartitions;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * With auth on, what a group answer says about a topic (committed offsets, lag, unsettled records,
 * a member's assignment) is shown only to a principal with a permission on that topic, as
 * DescribeTopic and ListTopics; naming such a topic in a request is refused. A principal with
 * permissions on every topic (root) sees all. Groups vis-g (offset mode) and vis-ack (ack mode) each
 * consume vis-a and vis-b; carol consumes in both groups and may see vis-a only, dave administers
 * them and may consume vis-a only.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class GroupVisibilityIT {
  static final String ROOT = "root-token-1234";
  static final String CAROL = "carol-token-5678";
  static final String DAVE = "dave-token-9012";

  @TempDir static Path dir;
  static BrokerProcess broker;
  static AckStream member;

  @BeforeAll
  static void startBroker() throws Exception {
    Path permissions = Files.writeString(dir.resolve("permissions"), """
        root * topic:*
        root * group:*
        carol consume group:vis-*
        carol consume topic:vis-a
        dave admin group:vis-*
        dave consume topic:vis-a
        """);
    broker = BrokerProcess.start(dir.resolve("data"), "--set", "auth.enabled=true",
        "--set", "auth.tokens=root=" + ROOT + ",carol=" + CAROL + ",dave=" + DAVE,
        "--set", "auth.permissions.file=" + permissions);
    Wire root = new Wire(Wire.withToken(broker.channel(), ROOT));
    for (String topic : List.of("vis-a", "vis-b")) {
      root.create(topic, 1);
      root.produceValues(topic, 0, 3, topic);
    }
    GroupServiceGrpc.GroupServiceBlockingStub groups = stub(ROOT);
    groups.commitOffsets(CommitOffsetsRequest.newBuilder().setGroup("vis-g")
        .addOffsets(OffsetCommit.newBuilder().setTopic("vis-a").setPartition(0).setOffset(1))
        .addOffsets(OffsetCommit.newBuilder().setTopic("vis-b").setPartition(0).setOffset(2)).build());
    groups.createGroup(CreateGroupRequest.newBuilder().setGroup("vis-ack").setMode(GroupMode.GROUP_MODE_ACK)
        .putConfig("auto.offset.reset", "earliest").build());
    member = new AckStream(Wire.withToken(broker.channel(), ROOT), "vis-ack", "root-w", 100, "vis-a", "vis-b");
    member.take(6, 10_000); // both partitions are the group's now
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (member != null) {
      member.close();
    }
    if (broker != null) {
      broker.close();
    }
  }

  static GroupServiceGrpc.GroupServiceBlockingStub stub(String token) {
    return GroupServiceGrpc.newBlockingStub(Wire.withToken(broker.channel(), token))
        .withDeadlineAfter(20, TimeUnit.SECONDS);
  }

  static List<String> partitionTopics(GroupDescription g) {
    return g.getPartitionsList().stream().map(GroupPartition::getTopic).distinct().sorted().toList();
  }

  static List<String> memberTopics(GroupDescription g) {
    return g.getMembersList().stream().flatMap(m -> m.getAssignmentList().stream()).map(TopicPartitions::getTopic)
        .distinct().sorted().toList();
  }

  static List<String> topics(List<CommittedOffset> offsets) {
    return offsets.stream().map(CommittedOffset::getTopic).distinct().sorted().toList();
  }

  static FetchCommittedOffsetsRequest fetch(String... topics) {
    FetchCommittedOffsetsRequest.Builder b = FetchCommittedOffsetsRequest.newBuilder().setGroup("vis-g");
    for (String t : topics) {
      b.addPartitions(TopicPartitions.newBuilder().setTopic(t));
    }
    return b.build();
  }

  static ResetGroupOffsetsRequest reset(String... topics) {
    ResetGroupOffsetsRequest.Builder b = ResetGroupOffsetsRequest.newBuilder().setGroup("vis-g").setDryRun(true)
        .setPosition(Position.newBuilder().setBoundary(Boundary.BOUNDARY_EARLIEST));
    for (String t : topics) {
      b.addPartitions(TopicPartitions.newBuilder().setTopic(t));
    }
    return b.build();
  }

  static void denied(StatusRuntimeException e) {
    assertThat(e.getStatus().getCode()).as(e.toString()).isEqualTo(Status.Code.PERMISSION_DENIED);
  }

  @Test
  void describeGroupShowsOnlyTheTopicsTheCallerMaySee() {
    DescribeGroupRequest offsets = DescribeGroupRequest.newBuilder().setGroup("vis-g").build();
    assertThat(partitionTopics(stub(CAROL).describeGroup(offsets).getGroup())).containsExactly("vis-a");
    assertThat(partitionTopics(stub(ROOT).describeGroup(offsets).getGroup())).containsExactly("vis-a", "vis-b");
  }

  @Test
  void describeGroupOfAnAckGroupShowsOnlyTheTopicsTheCallerMaySee() {
    DescribeGroupRequest acks = DescribeGroupRequest.newBuilder().setGroup("vis-ack").build();
    GroupDescription carols = stub(CAROL).describeGroup(acks).getGroup();
    assertThat(partitionTopics(carols)).containsExactly("vis-a");
    assertThat(carols.getMembersList()).extracting(MemberDescription::getMemberId).containsExactly("root-w");
    assertThat(memberTopics(carols)).as("the member's topics").containsExactly("vis-a");
    GroupDescription roots = stub(ROOT).describeGroup(acks).getGroup();
    assertThat(partitionTopics(roots)).containsExactly("vis-a", "vis-b");
    assertThat(memberTopics(roots)).containsExactly("vis-a", "vis-b");
  }

  @Test
  void fetchCommittedOffsetsShowsOnlyTheTopicsTheCallerMaySee() {
    assertThat(topics(stub(CAROL).fetchCommittedOffsets(fetch()).getOffsetsList())).containsExactly("vis-a");
    assertThat(topics(stub(ROOT).fetchCommittedOffsets(fetch()).getOffsetsList())).containsExactly("vis-a", "vis-b");
  }

  @Test
  void fetchCommittedOffsetsOfATopicTheCallerMayNotSeeIsRefused() {
    assertThat(stub(CAROL).fetchCommittedOffsets(fetch("vis-a")).getOffsets(0).getOffset()).isEqualTo(1);
    assertThatThrownBy(() -> stub(CAROL).fetchCommittedOffsets(fetch("vis-b")))
        .isInstanceOfSatisfying(StatusRuntimeException.class, GroupVisibilityIT::denied);
    assertThat(stub(ROOT).fetchCommittedOffsets(fetch("vis-b")).getOffsets(0).getOffset()).isEqualTo(2);
  }

  @Test
  void resetGroupOffsetsOfEveryPartitionReachesOnlyTheTopicsTheCallerMayConsume() {
    assertThat(topics(stub(DAVE).resetGroupOffsets(reset()).getOffsetsList())).containsExactly("vis-a");
    assertThat(topics(stub(ROOT).resetGroupOffsets(reset()).getOffsetsList())).containsExactly("vis-a", "vis-b");
  }

  @Test
  void resetGroupOffsetsOfATopicTheCallerMayNotConsumeIsRefused() {
    assertThat(topics(stub(DAVE).resetGroupOffsets(reset("vis-a")).getOffsetsList())).containsExactly("vis-a");
    assertThatThrownBy(() -> stub(DAVE).resetGroupOffsets(reset("vis-b")))
        .isInstanceOfSatisfying(StatusRuntimeException.class, GroupVisibilityIT::denied);
    assertThat(topics(stub(ROOT).resetGroupOffsets(reset("vis-b")).getOffsetsList())).containsExactly("vis-b");
  }

  @Test
  void alterGroupConfigAnswersOnlyTheTopicsTheCallerMaySee() {
    AlterGroupConfigRequest alter = AlterGroupConfigRequest.newBuilder().setGroup("vis-ack")
        .putSet("max.delivery.attempts", "5").build();
    assertThat(partitionTopics(stub(DAVE).alterGroupConfig(alter).getGroup())).containsExactly("vis-a");
    assertThat(partitionTopics(stub(ROOT).alterGroupConfig(alter).getGroup())).containsExactly("vis-a", "vis-b");
  }
}
