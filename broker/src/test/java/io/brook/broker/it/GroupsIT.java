package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.protocol.v1.Boundary;
import io.brook.protocol.v1.CommitOffsetsRequest;
import io.brook.protocol.v1.CommitOffsetsResponse;
import io.brook.protocol.v1.CommittedOffset;
import io.brook.protocol.v1.CreateGroupRequest;
import io.brook.protocol.v1.DeleteGroupRequest;
import io.brook.protocol.v1.DeleteTopicRequest;
import io.brook.protocol.v1.DescribeGroupRequest;
import io.brook.protocol.v1.ErrorCode;
import io.brook.protocol.v1.FetchCommittedOffsetsRequest;
import io.brook.protocol.v1.GroupDescription;
import io.brook.protocol.v1.GroupMode;
import io.brook.protocol.v1.GroupPartition;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.GroupState;
import io.brook.protocol.v1.HeartbeatRequest;
import io.brook.protocol.v1.JoinGroupRequest;
import io.brook.protocol.v1.JoinGroupResponse;
import io.brook.protocol.v1.LeaveGroupRequest;
import io.brook.protocol.v1.ListGroupsRequest;
import io.brook.protocol.v1.OffsetCommit;
import io.brook.protocol.v1.Position;
import io.brook.protocol.v1.ResetGroupOffsetsRequest;
import io.brook.protocol.v1.ResetGroupOffsetsResponse;
import io.brook.protocol.v1.TopicPartitions;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Offset-mode groups against the real broker: membership, rebalances, fencing, commits, admin. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class GroupsIT {
  static final int SESSION_MS = 1500;
  @TempDir Path dir;
  BrokerProcess broker;
  Wire wire;

  @BeforeEach
  void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"), "--set", "group.min.session.timeout.ms=500");
    wire = new Wire(broker.channel());
  }

  @AfterEach
  void stop() throws Exception {
    broker.close();
  }

  GroupServiceGrpc.GroupServiceBlockingStub groups() {
    return GroupServiceGrpc.newBlockingStub(broker.channel()).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  CompletableFuture<JoinGroupResponse> join(String group, String memberId, int rebalanceMs, String... topics) {
    JoinGroupRequest req = JoinGroupRequest.newBuilder().setGroup(group).setMemberId(memberId).setClientId("it")
        .addAllTopics(List.of(topics)).setSessionTimeoutMs(SESSION_MS).setRebalanceTimeoutMs(rebalanceMs).build();
    return CompletableFuture.supplyAsync(() -> groups().joinGroup(req));
  }

  boolean heartbeat(String group, JoinGroupResponse m) {
    return groups().heartbeat(HeartbeatRequest.newBuilder().setGroup(group).setMemberId(m.getMemberId())
        .setGeneration(m.getGeneration()).build()).getRejoin();
  }

  /** Heartbeats until the broker says rejoin (a rebalance started), at most ~10 s. */
  void awaitRejoin(String group, JoinGroupResponse m) throws InterruptedException {
    for (int i = 0; i < 200; i++) {
      if (heartbeat(group, m)) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no rebalance announced to " + m.getMemberId());
  }

  CommitOffsetsResponse commit(String group, String memberId, int generation, String topic, int partition,
      long offset) {
    return groups().commitOffsets(CommitOffsetsRequest.newBuilder().setGroup(group).setMemberId(memberId)
        .setGeneration(generation).addOffsets(OffsetCommit.newBuilder().setTopic(topic).setPartition(partition)
            .setOffset(offset).setMetadata("m" + offset)).build());
  }

  static List<Integer> partitions(JoinGroupResponse r) {
    List<Integer> out = new ArrayList<>();
    r.getAssignmentList().forEach(tp -> out.addAll(tp.getPartitionsList()));
    return out;
  }

  GroupDescription describe(String group) {
    return groups().describeGroup(DescribeGroupRequest.newBuilder().setGroup(group).build()).getGroup();
  }

  @Test
  void rebalancesWhenAMemberJoinsAndWhenOneGoesSilent() throws Exception {
    wire.create("orders", 4);
    JoinGroupResponse a = join("g", "", 10_000, "orders").get(30, TimeUnit.SECONDS);
    assertThat(a.getGeneration()).isEqualTo(1);
    assertThat(partitions(a)).containsExactly(0, 1, 2, 3);
    assertThat(a.getHeartbeatIntervalMs()).isEqualTo(SESSION_MS / 3);

    CompletableFuture<JoinGroupResponse> bJoin = join("g", "", 10_000, "orders");
    awaitRejoin("g", a); // A learns of the rebalance on its next heartbeat
    assertThat(bJoin).isNotDone(); // B waits until A has given up its partitions (rejoined)
    assertThat(commit("g", a.getMemberId(), a.getGeneration(), "orders", 0, 0).getResults(0).getErrorCode())
        .isEqualTo(ErrorCode.ERROR_CODE_UNSPECIFIED); // A commits while revoking, with its generation
    JoinGroupResponse a2 = join("g", a.getMemberId(), 10_000, "orders").get(30, TimeUnit.SECONDS);
    JoinGroupResponse b = bJoin.get(30, TimeUnit.SECONDS);
    assertThat(a2.getGeneration()).isEqualTo(2).isEqualTo(b.getGeneration());
    assertThat(partitions(a2)).hasSize(2).doesNotContainAnyElementsOf(partitions(b));
    assertThat(partitions(b)).hasSize(2);
    assertThat(describe("g").getMembersCount()).isEqualTo(2);

    // B goes silent (a killed process): after its session timeout A is told to rejoin and gets all.
    awaitRejoin("g", a2);
    JoinGroupResponse a3 = join("g", a2.getMemberId(), 10_000, "orders").get(30, TimeUnit.SECONDS);
    assertThat(a3.getGeneration()).isEqualTo(3);
    assertThat(partitions(a3)).containsExactlyInAnyOrder(0, 1, 2, 3);
    assertThatThrownBy(() -> heartbeat("g", b)).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
      assertThat(Wire.reason(e)).isEqualTo("UNKNOWN_MEMBER_ID");
    });
  }

  @Test
  void aMemberThatDoesNotRejoinWithinTheRebalanceTimeoutIsRemoved() throws Exception {
    wire.create("t", 2);
    JoinGroupResponse a = join("g", "", 1000, "t").get(30, TimeUnit.SECONDS);
    // A keeps heartbeating but never rejoins: B's join completes once A's rebalance timeout passed.
    CompletableFuture<JoinGroupResponse> bJoin = join("g", "", 1000, "t");
    while (!bJoin.isDone()) {
      try {
        heartbeat("g", a);
      } catch (StatusRuntimeException e) {
        assertThat(Wire.reason(e)).isEqualTo("UNKNOWN_MEMBER_ID");
      }
      Thread.sleep(100);
    }
    JoinGroupResponse b = bJoin.get();
    assertThat(partitions(b)).containsExactly(0, 1);
    assertThat(describe("g").getMembersList()).extracting(m -> m.getMemberId()).containsExactly(b.getMemberId());
  }

  @Test
  void staleGenerationsAndUnknownMembersAreFenced() throws Exception {
    wire.create("t", 2);
    wire.produceValues("t", 0, 5, "v");
    JoinGroupResponse a = join("g", "", 10_000, "t").get(30, TimeUnit.SECONDS);
    CompletableFuture<JoinGroupResponse> bJoin = join("g", "", 10_000, "t");
    awaitRejoin("g", a);
    JoinGroupResponse a2 = join("g", a.getMemberId(), 10_000, "t").get(30, TimeUnit.SECONDS);
    bJoin.get(30, TimeUnit.SECONDS);

    assertThatThrownBy(() -> commit("g", a.getMemberId(), a.getGeneration(), "t", 0, 3))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.ABORTED);
          assertThat(Wire.reason(e)).isEqualTo("ILLEGAL_GENERATION");
          assertThat(e.getStatus().getDescription()).contains("generation 1", "current: 2");
        });
    assertThatThrownBy(() -> commit("g", "nobody", 2, "t", 0, 3))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(Wire.reason(e))
            .isEqualTo("UNKNOWN_MEMBER_ID"));
    assertThatThrownBy(() -> commit("g", "", 0, "t", 0, 3)) // an outsider while members are in
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(Wire.reason(e))
            .isEqualTo("GROUP_NOT_EMPTY"));
    assertThatThrownBy(() -> heartbeat("nogroup", a2)).isInstanceOfSatisfying(StatusRuntimeException.class,
        e -> assertThat(Wire.reason(e)).isEqualTo("UNKNOWN_GROUP"));

    CommitOffsetsResponse r = groups().commitOffsets(CommitOffsetsRequest.newBuilder().setGroup("g")
        .setMemberId(a2.getMemberId()).setGeneration(a2.getGeneration())
        .addOffsets(OffsetCommit.newBuilder().setTopic("t").setPartition(0).setOffset(6))
        .addOffsets(OffsetCommit.newBuilder().setTopic("t").setPartition(0).setOffset(5))
        .addOffsets(OffsetCommit.newBuilder().setTopic("nope").setPartition(0).setOffset(0))
        .addOffsets(OffsetCommit.newBuilder().setTopic("t").setPartition(9).setOffset(0)).build());
    assertThat(r.getResultsList()).extracting(x -> x.getErrorCode()).containsExactly(
        ErrorCode.ERROR_CODE_OFFSET_OUT_OF_RANGE, ErrorCode.ERROR_CODE_UNSPECIFIED, ErrorCode.ERROR_CODE_UNKNOWN_TOPIC,
        ErrorCode.ERROR_CODE_UNKNOWN_PARTITION);
    assertThat(r.getResults(0).getErrorMessage()).contains("[0, 5]");
  }

  @Test
  void generationAndCommitsSurviveKill9AndOldMembersCannotCommitAfter() throws Exception {
    wire.create("t", 1);
    wire.produceValues("t", 0, 10, "v");
    JoinGroupResponse a = join("g", "", 10_000, "t").get(30, TimeUnit.SECONDS);
    CompletableFuture<JoinGroupResponse> bJoin = join("g", "", 10_000, "t");
    awaitRejoin("g", a);
    JoinGroupResponse a2 = join("g", a.getMemberId(), 10_000, "t").get(30, TimeUnit.SECONDS);
    bJoin.get(30, TimeUnit.SECONDS);
    assertThat(commit("g", a2.getMemberId(), 2, "t", 0, 7).getResults(0).getErrorCode())
        .isEqualTo(ErrorCode.ERROR_CODE_UNSPECIFIED);

    broker.kill9();
    broker.restart();
    assertThatThrownBy(() -> commit("g", a2.getMemberId(), 2, "t", 0, 9))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(Wire.reason(e))
            .isEqualTo("UNKNOWN_MEMBER_ID"));
    CommittedOffset c = groups().fetchCommittedOffsets(FetchCommittedOffsetsRequest.newBuilder().setGroup("g")
        .build()).getOffsets(0);
    assertThat(c.getOffset()).isEqualTo(7);
    assertThat(c.getMetadata()).isEqualTo("m7");
    JoinGroupResponse fresh = join("g", "", 10_000, "t").get(30, TimeUnit.SECONDS);
    assertThat(fresh.getGeneration()).isEqualTo(3);
  }

  @Test
  void describeShowsMembersAssignmentsCommittedOffsetsAndLag() throws Exception {
    wire.create("t", 2);
    wire.produceValues("t", 0, 10, "a");
    wire.produceValues("t", 1, 4, "b");
    JoinGroupResponse a = join("g", "", 10_000, "t").get(30, TimeUnit.SECONDS);
    commit("g", a.getMemberId(), a.getGeneration(), "t", 0, 6);
    GroupDescription d = describe("g");
    assertThat(d.getMode()).isEqualTo(GroupMode.GROUP_MODE_OFFSET);
    assertThat(d.getState()).isEqualTo(GroupState.GROUP_STATE_STABLE);
    assertThat(d.getMembers(0).getMemberId()).isEqualTo(a.getMemberId());
    assertThat(d.getMembers(0).getClientAddress()).startsWith("127.0.0.1:");
    assertThat(d.getMembers(0).getAssignment(0).getPartitionsList()).containsExactly(0, 1);
    GroupPartition p0 = d.getPartitions(0);
    assertThat(p0.getCommittedOffset()).isEqualTo(6);
    assertThat(p0.getEndOffset()).isEqualTo(10);
    assertThat(p0.getLag()).isEqualTo(4);
    assertThat(p0.getMemberId()).isEqualTo(a.getMemberId());
    assertThat(d.getPartitions(1).hasCommittedOffset()).isFalse();
    assertThat(groups().listGroups(ListGroupsRequest.getDefaultInstance()).getGroupsList())
        .extracting(s -> s.getName() + ":" + s.getMemberCount()).containsExactly("g:1");
  }

  @Test
  void resetAndDeleteOnlyWhileEmpty() throws Exception {
    wire.create("t", 2);
    wire.produceValues("t", 0, 10, "a");
    wire.produceValues("t", 1, 10, "b");
    JoinGroupResponse a = join("g", "", 10_000, "t").get(30, TimeUnit.SECONDS);
    ResetGroupOffsetsRequest earliest = ResetGroupOffsetsRequest.newBuilder().setGroup("g")
        .addPartitions(TopicPartitions.newBuilder().setTopic("t"))
        .setPosition(Position.newBuilder().setBoundary(Boundary.BOUNDARY_EARLIEST)).build();
    assertThatThrownBy(() -> groups().resetGroupOffsets(earliest))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
          assertThat(Wire.reason(e)).isEqualTo("GROUP_NOT_EMPTY");
        });
    assertThatThrownBy(() -> groups().deleteGroup(DeleteGroupRequest.newBuilder().setGroup("g").build()))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(Wire.reason(e))
            .isEqualTo("GROUP_NOT_EMPTY"));
    groups().leaveGroup(LeaveGroupRequest.newBuilder().setGroup("g").setMemberId(a.getMemberId()).build());
    assertThat(describe("g").getState()).isEqualTo(GroupState.GROUP_STATE_EMPTY);

    ResetGroupOffsetsResponse dry = groups().resetGroupOffsets(earliest.toBuilder()
        .setPosition(Position.newBuilder().setBoundary(Boundary.BOUNDARY_LATEST)).setDryRun(true).build());
    assertThat(dry.getOffsetsList()).extracting(CommittedOffset::getOffset).containsExactly(10L, 10L);
    assertThat(describe("g").getPartitionsList()).allMatch(p -> !p.hasCommittedOffset());
    groups().resetGroupOffsets(earliest.toBuilder().setPosition(Position.newBuilder().setOffset(4)).build());
    assertThat(describe("g").getPartitionsList()).extracting(GroupPartition::getCommittedOffset)
        .containsExactly(4L, 4L);
    ResetGroupOffsetsResponse bad = groups().resetGroupOffsets(earliest.toBuilder()
        .setPosition(Position.newBuilder().setOffset(99)).build());
    assertThat(bad.getOffsetsList()).allMatch(o -> o.getErrorCode() == ErrorCode.ERROR_CODE_OFFSET_OUT_OF_RANGE);
    groups().resetGroupOffsets(earliest.toBuilder()
        .setPosition(Position.newBuilder().setTimestampMs(Long.MAX_VALUE)).build());
    assertThat(describe("g").getPartitionsList()).extracting(GroupPartition::getCommittedOffset)
        .containsExactly(10L, 10L);

    groups().deleteGroup(DeleteGroupRequest.newBuilder().setGroup("g").build());
    assertThatThrownBy(() -> describe("g")).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
      assertThat(Wire.reason(e)).isEqualTo("UNKNOWN_GROUP");
    });
    assertThat(dir.resolve("data/groups/g")).doesNotExist();
  }

  @Test
  void aDeletedTopicLeavesTheGroupAndItsMembersAreRebalanced() throws Exception {
    wire.create("t", 1);
    wire.create("u", 1);
    wire.produceValues("t", 0, 3, "a");
    JoinGroupResponse a = join("g", "", 10_000, "t", "u").get(30, TimeUnit.SECONDS);
    commit("g", a.getMemberId(), a.getGeneration(), "t", 0, 3);
    wire.admin.deleteTopic(DeleteTopicRequest.newBuilder().setName("t").build());
    awaitRejoin("g", a);
    JoinGroupResponse a2 = join("g", a.getMemberId(), 10_000, "t", "u").get(30, TimeUnit.SECONDS);
    assertThat(a2.getAssignmentList()).extracting(TopicPartitions::getTopic).containsExactly("u");
    assertThat(groups().fetchCommittedOffsets(FetchCommittedOffsetsRequest.newBuilder().setGroup("g").build())
        .getOffsetsList()).isEmpty();
    wire.create("t", 1); // the same name again is a new topic: nothing committed carries over
    broker.kill9();
    broker.restart();
    assertThat(groups().fetchCommittedOffsets(FetchCommittedOffsetsRequest.newBuilder().setGroup("g").build())
        .getOffsetsList()).isEmpty();
  }

  @Test
  void badRequestsGetClearErrors() throws Exception {
    wire.create("t", 1);
    groups().createGroup(CreateGroupRequest.newBuilder().setGroup("acks").setMode(GroupMode.GROUP_MODE_ACK).build());
    assertThatThrownBy(() -> join("acks", "", 10_000, "t").join()).hasCauseInstanceOf(StatusRuntimeException.class)
        .cause().satisfies(e -> {
          assertThat(Wire.reason((StatusRuntimeException) e)).isEqualTo("INCONSISTENT_GROUP_MODE");
          assertThat(e.getMessage()).contains("ack mode");
        });
    assertThatThrownBy(() -> join("bad/name", "", 10_000, "t").join()).cause().satisfies(e ->
        assertThat(((StatusRuntimeException) e).getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
    assertThatThrownBy(() -> groups().joinGroup(JoinGroupRequest.newBuilder().setGroup("g").addTopics("t")
        .setSessionTimeoutMs(100).build())).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
          assertThat(e.getStatus().getDescription()).contains("group.min/max.session.timeout.ms");
        });
    assertThatThrownBy(() -> groups().createGroup(CreateGroupRequest.newBuilder().setGroup("acks").build()))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e ->
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.ALREADY_EXISTS));
    assertThatThrownBy(() -> groups().createGroup(CreateGroupRequest.newBuilder().setGroup("x")
        .setMode(GroupMode.GROUP_MODE_ACK).putConfig("ack.timeout.ms", "soon").build()))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e ->
            assertThat(e.getStatus().getDescription()).contains("ack.timeout.ms=soon"));
    assertThatThrownBy(() -> groups().createGroup(CreateGroupRequest.newBuilder().setGroup("x")
        .putConfig("ack.timeout.ms", "500").build())).isInstanceOfSatisfying(StatusRuntimeException.class, e ->
            assertThat(e.getStatus().getDescription()).contains("offset-mode groups take no config"));
    assertThatThrownBy(() -> groups().joinGroup(JoinGroupRequest.newBuilder().setGroup("g").build()))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e ->
            assertThat(e.getStatus().getDescription()).contains("at least one topic"));
  }
}
