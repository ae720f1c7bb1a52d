package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.protocol.v1.AckServiceGrpc;
import io.brook.protocol.v1.CommitOffsetsRequest;
import io.brook.protocol.v1.CreateGroupRequest;
import io.brook.protocol.v1.GroupMode;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.HeartbeatRequest;
import io.brook.protocol.v1.InitProducerRequest;
import io.brook.protocol.v1.InitProducerResponse;
import io.brook.protocol.v1.JoinGroupRequest;
import io.brook.protocol.v1.JoinGroupResponse;
import io.brook.protocol.v1.LeaveGroupRequest;
import io.brook.protocol.v1.OffsetCommit;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceResult;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.ProduceStreamRequest;
import io.brook.protocol.v1.ProduceStreamResponse;
import io.brook.protocol.v1.SettleRequest;
import io.brook.protocol.v1.SettleResponse;
import io.grpc.Channel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * With auth on, a group member and an idempotent producer id belong to the principal that made
 * them: another principal with the same permissions may not take over the member's stream, settle,
 * heartbeat, commit or leave as it, nor bump or write under the producer id (PERMISSION_DENIED,
 * reason NOT_OWNER). The owner still may. Each RPC is called by the owner and by the other.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class OwnershipIT {
  static final String ROOT = "root-token-1234";
  static final String ALICE = "alice-token-5678";
  static final String BOB = "bob-token-9012";
  static final String PERMISSIONS = """
      root * topic:*
      root * group:*
      # alice and bob have the same rights: only ownership tells them apart
      alice produce,consume topic:own-*
      alice consume group:own-*
      bob produce,consume topic:own-*
      bob consume group:own-*
      """;

  @TempDir static Path dir;
  static BrokerProcess broker;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"), authOn(dir));
    Wire root = new Wire(as(ROOT));
    for (String topic : new String[] {"own-r", "own-s", "own-o", "own-p", "own-restart"}) {
      root.create(topic, 1);
    }
  }

  static String[] authOn(Path dir) throws Exception {
    Path permissions = Files.writeString(dir.resolve("permissions"), PERMISSIONS);
    return new String[] {"--set", "auth.enabled=true", "--set",
        "auth.tokens=root=" + ROOT + ",alice=" + ALICE + ",bob=" + BOB, "--set",
        "auth.permissions.file=" + permissions};
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  static Channel as(String token) {
    return Wire.withToken(broker.channel(), token);
  }

  /** The call was refused because the member or producer id is another principal's. */
  static void notOwner(StatusRuntimeException e) {
    assertThat(e.getStatus().getCode()).as(e.toString()).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(Wire.reason(e)).as(e.toString()).isEqualTo("NOT_OWNER");
  }

  /** How a stream ended: its error, or an AssertionError when it did not end in time or completed. */
  static StatusRuntimeException endOf(Recorder<?> stream) throws InterruptedException {
    for (Object e = stream.next(10); ; e = stream.next(10)) {
      if (e == null) {
        throw new AssertionError("the stream did not end");
      }
      if (e instanceof StatusRuntimeException s) {
        return s;
      }
      if (e instanceof Throwable t) {
        throw new AssertionError("the stream failed with " + t, t);
      }
      if ("completed".equals(e)) {
        throw new AssertionError("the stream completed instead of failing");
      }
    }
  }

  @Test
  void receiveWithAnotherPrincipalsClientIdIsRefusedAndTheOwnerMayStillTakeOver() throws Exception {
    try (AckStream alice = new AckStream(as(ALICE), "own-ack-r", "worker-1", 10, "own-r")) {
      assertThat(alice.awaitMemberId(10)).isEqualTo("worker-1");
      try (AckStream bob = new AckStream(as(BOB), "own-ack-r", "worker-1", 10, "own-r")) {
        notOwner(endOf(bob.responses));
      }
      new Wire(as(ROOT)).produceValues("own-r", 0, 1, "for-alice");
      assertThat(alice.next(10_000).value()).as("alice's stream still receives").isEqualTo("for-alice0");
      try (AckStream again = new AckStream(as(ALICE), "own-ack-r", "worker-1", 10, "own-r")) {
        assertThat(again.awaitMemberId(10)).isEqualTo("worker-1");
        StatusRuntimeException replaced = endOf(alice.responses);
        assertThat(replaced.getStatus().getCode()).as("the owner's takeover").isEqualTo(Status.Code.ABORTED);
      }
    }
  }

  @Test
  void settleAsAnotherPrincipalsMemberIsRefused() throws Exception {
    try (AckStream alice = new AckStream(as(ALICE), "own-ack-s", "", 10, "own-s")) {
      String member = alice.awaitMemberId(10);
      new Wire(as(ROOT)).produceValues("own-s", 0, 1, "s"); // the group made by Receive starts at the end
      AckStream.Got got = alice.next(10_000);
      SettleRequest ack = SettleRequest.newBuilder().setGroup("own-ack-s").setMemberId(member)
          .addAcks(AckStream.range("own-s", 0, got.offset(), got.offset())).build();
      assertThatThrownBy(() -> AckServiceGrpc.newBlockingStub(as(BOB)).settle(ack))
          .isInstanceOfSatisfying(StatusRuntimeException.class, OwnershipIT::notOwner);
      SettleResponse own = AckServiceGrpc.newBlockingStub(as(ALICE)).settle(ack);
      assertThat(own.getFailuresList()).as("the record was still alice's to ack").isEmpty();
    }
  }

  /** Alice's member of a fresh offset-mode group, and the stubs of both principals. */
  record OffsetMember(String group, JoinGroupRequest join, JoinGroupResponse joined,
      GroupServiceGrpc.GroupServiceBlockingStub alice, GroupServiceGrpc.GroupServiceBlockingStub bob) {
    static OffsetMember of(String group) {
      JoinGroupRequest join = JoinGroupRequest.newBuilder().setGroup(group).setClientId("c").addTopics("own-o")
          .setSessionTimeoutMs(30_000).setRebalanceTimeoutMs(10_000).build();
      GroupServiceGrpc.GroupServiceBlockingStub alice = GroupServiceGrpc.newBlockingStub(as(ALICE))
          .withDeadlineAfter(20, TimeUnit.SECONDS);
      GroupServiceGrpc.GroupServiceBlockingStub bob = GroupServiceGrpc.newBlockingStub(as(BOB))
          .withDeadlineAfter(20, TimeUnit.SECONDS);
      return new OffsetMember(group, join, alice.joinGroup(join), alice, bob);
    }

    HeartbeatRequest heartbeat() {
      return HeartbeatRequest.newBuilder().setGroup(group).setMemberId(joined.getMemberId())
          .setGeneration(joined.getGeneration()).build();
    }

    /** Alice's member is still there, unchanged by whatever bob tried. */
    void stillAlices() {
      assertThat(alice.heartbeat(heartbeat()).getRejoin()).isFalse();
    }
  }

  @Test
  void heartbeatAsAnotherPrincipalsMemberIsRefused() {
    OffsetMember m = OffsetMember.of("own-g-heartbeat");
    assertThatThrownBy(() -> m.bob().heartbeat(m.heartbeat()))
        .isInstanceOfSatisfying(StatusRuntimeException.class, OwnershipIT::notOwner);
    m.stillAlices();
  }

  @Test
  void commitAsAnotherPrincipalsMemberIsRefused() {
    OffsetMember m = OffsetMember.of("own-g-commit");
    CommitOffsetsRequest commit = CommitOffsetsRequest.newBuilder().setGroup(m.group())
        .setMemberId(m.joined().getMemberId()).setGeneration(m.joined().getGeneration())
        .addOffsets(OffsetCommit.newBuilder().setTopic("own-o").setPartition(0).setOffset(0)).build();
    assertThatThrownBy(() -> m.bob().commitOffsets(commit))
        .isInstanceOfSatisfying(StatusRuntimeException.class, OwnershipIT::notOwner);
    assertThat(m.alice().commitOffsets(commit).getResults(0).getErrorCodeValue()).isZero();
  }

  @Test
  void rejoinAsAnotherPrincipalsMemberIsRefused() {
    OffsetMember m = OffsetMember.of("own-g-rejoin");
    JoinGroupRequest rejoin = m.join().toBuilder().setMemberId(m.joined().getMemberId()).build();
    assertThatThrownBy(() -> m.bob().joinGroup(rejoin))
        .isInstanceOfSatisfying(StatusRuntimeException.class, OwnershipIT::notOwner);
    m.stillAlices();
    assertThat(m.alice().joinGroup(rejoin).getMemberId()).isEqualTo(m.joined().getMemberId());
  }

  @Test
  void leaveAsAnotherPrincipalsMemberIsRefused() {
    OffsetMember m = OffsetMember.of("own-g-leave");
    LeaveGroupRequest leave = LeaveGroupRequest.newBuilder().setGroup(m.group())
        .setMemberId(m.joined().getMemberId()).build();
    assertThatThrownBy(() -> m.bob().leaveGroup(leave))
        .isInstanceOfSatisfying(StatusRuntimeException.class, OwnershipIT::notOwner);
    m.stillAlices();
    m.alice().leaveGroup(leave);
  }

  static InitProducerResponse init(String token) {
    return ProduceServiceGrpc.newBlockingStub(as(token)).initProducer(InitProducerRequest.getDefaultInstance());
  }

  static ProduceRequest idempotent(InitProducerResponse id, String topic, int sequence, String value) {
    return ProduceRequest.newBuilder().setProducerId(id.getProducerId()).setProducerEpoch(id.getProducerEpoch())
        .addBatches(ProduceBatch.newBuilder().setTopic(topic).setPartition(0).setBaseSequence(sequence)
            .addRecords(Wire.value(value))).build();
  }

  @Test
  void initProducerOfAnotherPrincipalsIdIsRefused() {
    InitProducerResponse alices = init(ALICE);
    InitProducerRequest bump = InitProducerRequest.newBuilder().setProducerId(alices.getProducerId()).build();
    assertThatThrownBy(() -> ProduceServiceGrpc.newBlockingStub(as(BOB)).initProducer(bump))
        .isInstanceOfSatisfying(StatusRuntimeException.class, OwnershipIT::notOwner);
    ProduceResult written = ProduceServiceGrpc.newBlockingStub(as(ALICE))
        .produce(idempotent(alices, "own-p", 0, "a")).getResults(0);
    assertThat(written.getErrorCodeValue()).as("alice is not fenced: " + written).isZero();
    assertThat(ProduceServiceGrpc.newBlockingStub(as(ALICE)).initProducer(bump).getProducerEpoch())
        .as("the owner may bump its own id").isEqualTo(alices.getProducerEpoch() + 1);
  }

  @Test
  void produceUnderAnotherPrincipalsProducerIdIsRefused() {
    InitProducerResponse alices = init(ALICE);
    assertThatThrownBy(() -> ProduceServiceGrpc.newBlockingStub(as(BOB)).produce(idempotent(alices, "own-p", 0, "b")))
        .isInstanceOfSatisfying(StatusRuntimeException.class, OwnershipIT::notOwner);
    aliceWritesHerSequenceZero(alices);
  }

  @Test
  void aProduceStreamUnderAnotherPrincipalsProducerIdIsRefused() throws Exception {
    InitProducerResponse alices = init(ALICE);
    Recorder<ProduceStreamResponse> answers = new Recorder<>();
    StreamObserver<ProduceStreamRequest> stream = ProduceServiceGrpc.newStub(as(BOB)).produceStream(answers);
    stream.onNext(ProduceStreamRequest.newBuilder().setCorrelationId(1)
        .setRequest(idempotent(alices, "own-p", 0, "b")).build());
    notOwner(endOf(answers));
    aliceWritesHerSequenceZero(alices);
  }

  /** Alice's first batch is written, not answered as a duplicate of something bob wrote under her id. */
  static void aliceWritesHerSequenceZero(InitProducerResponse alices) {
    ProduceResult own = ProduceServiceGrpc.newBlockingStub(as(ALICE)).produce(idempotent(alices, "own-p", 0, "a"))
        .getResults(0);
    assertThat(own.getErrorCodeValue()).as(own.toString()).isZero();
    assertThat(own.getDuplicate()).as("bob wrote nothing under alice's sequence 0").isFalse();
  }

  @Test
  void producerIdsStayTheirOwnersAfterAKill() throws Exception {
    InitProducerResponse alices = init(ALICE);
    broker.kill9();
    broker.restart();
    InitProducerRequest bump = InitProducerRequest.newBuilder().setProducerId(alices.getProducerId()).build();
    assertThatThrownBy(() -> ProduceServiceGrpc.newBlockingStub(as(BOB)).initProducer(bump))
        .isInstanceOfSatisfying(StatusRuntimeException.class, OwnershipIT::notOwner);
    assertThatThrownBy(() -> ProduceServiceGrpc.newBlockingStub(as(BOB))
        .produce(idempotent(alices, "own-restart", 0, "b")))
        .isInstanceOfSatisfying(StatusRuntimeException.class, OwnershipIT::notOwner);
    assertThat(ProduceServiceGrpc.newBlockingStub(as(ALICE)).initProducer(bump).getProducerEpoch()).isEqualTo(1);
  }

  /**
   * Producer ids handed out while auth was off have no owner: with auth on they keep working, and
   * the first principal to bump one owns it from then on.
   */
  @Test
  void idsFromBeforeAuthHaveNoOwnerUntilBumped(@TempDir Path other) throws Exception {
    Path data = other.resolve("data");
    InitProducerResponse old;
    try (BrokerProcess open = BrokerProcess.start(data)) {
      new Wire(open.channel()).create("own-old", 1);
      old = ProduceServiceGrpc.newBlockingStub(open.channel()).initProducer(InitProducerRequest.getDefaultInstance());
      assertThat(ProduceServiceGrpc.newBlockingStub(open.channel()).produce(idempotent(old, "own-old", 0, "x"))
          .getResults(0).getErrorCodeValue()).isZero();
    }
    try (BrokerProcess secured = BrokerProcess.start(data, authOn(other))) {
      Channel alice = Wire.withToken(secured.channel(), ALICE);
      Channel bob = Wire.withToken(secured.channel(), BOB);
      assertThat(ProduceServiceGrpc.newBlockingStub(alice).produce(idempotent(old, "own-old", 1, "y"))
          .getResults(0).getErrorCodeValue()).as("an id without an owner is anyone's").isZero();
      InitProducerRequest bump = InitProducerRequest.newBuilder().setProducerId(old.getProducerId()).build();
      InitProducerResponse claimed = ProduceServiceGrpc.newBlockingStub(bob).initProducer(bump);
      assertThat(claimed.getProducerEpoch()).isEqualTo(1);
      assertThatThrownBy(() -> ProduceServiceGrpc.newBlockingStub(alice).initProducer(bump))
          .as("bob bumped it first: it is bob's now")
          .isInstanceOfSatisfying(StatusRuntimeException.class, OwnershipIT::notOwner);
    }
  }

  /** With auth off there is no principal: any client may take over a client id (the documented takeover). */
  @Test
  void withAuthOffAnyClientTakesOverAClientId(@TempDir Path other) throws Exception {
    try (BrokerProcess open = BrokerProcess.start(other.resolve("data"))) {
      new Wire(open.channel()).create("own-open", 1);
      GroupServiceGrpc.newBlockingStub(open.channel()).createGroup(CreateGroupRequest.newBuilder()
          .setGroup("own-open-g").setMode(GroupMode.GROUP_MODE_ACK).build());
      try (AckStream first = new AckStream(open.channel(), "own-open-g", "w", 10, "own-open")) {
        assertThat(first.awaitMemberId(10)).isEqualTo("w");
        try (AckStream second = new AckStream(open.channel(), "own-open-g", "w", 10, "own-open")) {
          assertThat(second.awaitMemberId(10)).isEqualTo("w");
          assertThat(endOf(first.responses).getStatus().getCode()).isEqualTo(Status.Code.ABORTED);
        }
      }
    }
  }
}
