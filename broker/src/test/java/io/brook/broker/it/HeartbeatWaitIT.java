package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.HeartbeatRequest;
import io.brook.protocol.v1.HeartbeatResponse;
import io.brook.protocol.v1.JoinGroupRequest;
import io.brook.protocol.v1.JoinGroupResponse;
import io.brook.protocol.v1.LeaveGroupRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A heartbeat with max_wait_ms is held until the group starts a rebalance, so members hear of a join
 * or a leave at once (D16); without it (an older client) it is answered at once, as before. Members
 * get a 30 s heartbeat interval here: every answer awaited below comes from the group changing.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HeartbeatWaitIT {
  static final int SESSION_MS = 90_000; // interval: min(30 s, 90 s / 3)
  @TempDir Path dir;
  BrokerProcess broker;

  @BeforeEach
  void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"), "--set", "group.heartbeat.interval.ms=30000");
    new Wire(broker.channel()).create("orders", 2);
  }

  @AfterEach
  void stop() throws Exception {
    broker.close();
  }

  GroupServiceGrpc.GroupServiceBlockingStub groups() {
    return GroupServiceGrpc.newBlockingStub(broker.channel()).withDeadlineAfter(60, TimeUnit.SECONDS);
  }

  CompletableFuture<JoinGroupResponse> join(String memberId) {
    JoinGroupRequest req = JoinGroupRequest.newBuilder().setGroup("g").setMemberId(memberId).addTopics("orders")
        .setSessionTimeoutMs(SESSION_MS).setRebalanceTimeoutMs(30_000).build();
    return CompletableFuture.supplyAsync(() -> groups().joinGroup(req));
  }

  CompletableFuture<Boolean> heartbeat(JoinGroupResponse m, int maxWaitMs) {
    HeartbeatRequest req = HeartbeatRequest.newBuilder().setGroup("g").setMemberId(m.getMemberId())
        .setGeneration(m.getGeneration()).setMaxWaitMs(maxWaitMs).build();
    return CompletableFuture.supplyAsync(() -> groups().heartbeat(req)).thenApply(HeartbeatResponse::getRejoin);
  }

  @Test
  void aHeldHeartbeatIsAnsweredWhenAMemberJoinsOrLeaves() throws Exception {
    JoinGroupResponse a = join("").get(30, TimeUnit.SECONDS);
    assertThat(a.getHeartbeatIntervalMs()).isEqualTo(30_000);
    assertThat(heartbeat(a, 0).get(10, TimeUnit.SECONDS)).as("max_wait_ms 0: at once, as before").isFalse();

    CompletableFuture<Boolean> held = heartbeat(a, 30_000);
    CompletableFuture<JoinGroupResponse> bJoin = join("");
    assertThat(held.get(10, TimeUnit.SECONDS)).as("a hears of b's join").isTrue();
    JoinGroupResponse a2 = join(a.getMemberId()).get(30, TimeUnit.SECONDS);
    JoinGroupResponse b = bJoin.get(30, TimeUnit.SECONDS);
    assertThat(a2.getGeneration()).isEqualTo(2).isEqualTo(b.getGeneration());

    held = heartbeat(a2, 30_000);
    CompletableFuture<Boolean> bHeld = heartbeat(b, 30_000);
    groups().leaveGroup(LeaveGroupRequest.newBuilder().setGroup("g").setMemberId(b.getMemberId()).build());
    assertThat(held.get(10, TimeUnit.SECONDS)).as("a hears of b's leave").isTrue();
    assertThat(outcome(bHeld)).as("b's own held heartbeat: b is no member any more").isEqualTo("UNKNOWN_MEMBER_ID");
    JoinGroupResponse a3 = join(a2.getMemberId()).get(30, TimeUnit.SECONDS);
    assertThat(a3.getGeneration()).isEqualTo(3);
    assertThat(a3.getAssignment(0).getPartitionsList()).containsExactly(0, 1);

    assertThat(heartbeat(a3, 200).get(10, TimeUnit.SECONDS)).as("nothing changed within the wait").isFalse();
    held = heartbeat(a3, 30_000);
    groups().leaveGroup(LeaveGroupRequest.newBuilder().setGroup("g").setMemberId(a3.getMemberId()).build());
    assertThat(outcome(held)).as("a member that leaves has its held heartbeat answered").isEqualTo("UNKNOWN_MEMBER_ID");
  }

  @Test
  void aNegativeWaitIsRefused() throws Exception {
    JoinGroupResponse a = join("").get(30, TimeUnit.SECONDS);
    assertThatThrownBy(() -> heartbeat(a, -1).join()).hasCauseInstanceOf(StatusRuntimeException.class)
        .cause().satisfies(e -> {
          assertThat(((StatusRuntimeException) e).getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
          assertThat(e.getMessage()).contains("max_wait_ms");
        });
  }

  /** "true"/"false", or the reason of the error a held heartbeat got, within 10 s. */
  static String outcome(CompletableFuture<Boolean> heartbeat) throws Exception {
    try {
      return String.valueOf(heartbeat.get(10, TimeUnit.SECONDS));
    } catch (ExecutionException e) {
      return Wire.reason((StatusRuntimeException) e.getCause());
    }
  }
}
