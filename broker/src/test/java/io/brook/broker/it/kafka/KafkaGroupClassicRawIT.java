package io.brook.broker.it.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.it.BrokerProcess;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The classic group APIs written by hand against the real broker process, for what no client sends
 * on its own: JoinGroup below v4 (no MEMBER_ID_REQUIRED) and from v4, a SyncGroup of a stale
 * generation, LeaveGroup below v3 (one member) and from v3 (a batch, answered per member), and a
 * JoinGroup parked on a connection that closes (the member stays; it rejoins with its id).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KafkaGroupClassicRawIT {
  static final int SESSION_MS = 10_000;
  @TempDir static Path dir;
  static BrokerProcess broker;
  static int correlation;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"), "--set", "group.initial.rebalance.delay.ms=0",
        "--set", "group.min.session.timeout.ms=500");
    RawKafka.createTopic(broker.kafkaPort(), "t", 2);
  }

  @AfterAll
  static void stop() throws Exception {
    broker.close();
  }

  @Test
  void joinGroupFromV4FirstAnswersMemberIdRequiredBelowItJoinsAtOnce() throws Exception {
    try (KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
      JoinGroupResponseData v3 = join(wire, (short) 3, "g-v3", "");
      assertThat(Errors.forCode(v3.errorCode())).isEqualTo(Errors.NONE);
      assertThat(v3.generationId()).isEqualTo(1);
      assertThat(v3.leader()).isEqualTo(v3.memberId());

      JoinGroupResponseData first = join(wire, (short) 9, "g-v9", "");
      assertThat(Errors.forCode(first.errorCode())).isEqualTo(Errors.MEMBER_ID_REQUIRED);
      assertThat(first.memberId()).startsWith("kafka-wire-test-");
      JoinGroupResponseData joined = join(wire, (short) 9, "g-v9", first.memberId());
      assertThat(Errors.forCode(joined.errorCode())).isEqualTo(Errors.NONE);
      assertThat(joined.memberId()).isEqualTo(first.memberId());
      assertThat(joined.leader()).isEqualTo(first.memberId());
      assertThat(joined.protocolType()).isEqualTo("consumer");
      assertThat(joined.protocolName()).isEqualTo("range");
      assertThat(joined.members()).singleElement().satisfies(m -> assertThat(
          ConsumerProtocol.deserializeSubscription(ByteBuffer.wrap(m.metadata())).topics()).containsExactly("t"));
    }
  }

  @Test
  void aSyncGroupOfAnotherGenerationIsRefusedAndTheLeadersAssignmentComesBack() throws Exception {
    try (KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
      JoinGroupResponseData joined = joinNew(wire, (short) 5, "g-sync");
      SyncGroupResponseData stale = sync(wire, "g-sync", joined.generationId() + 1, joined.memberId(), null);
      assertThat(Errors.forCode(stale.errorCode())).isEqualTo(Errors.ILLEGAL_GENERATION);

      byte[] mine = ConsumerProtocol.serializeAssignment(new Assignment(List.of(new TopicPartition("t", 0),
          new TopicPartition("t", 1)))).array();
      SyncGroupResponseData synced = sync(wire, "g-sync", joined.generationId(), joined.memberId(), mine);
      assertThat(Errors.forCode(synced.errorCode())).isEqualTo(Errors.NONE);
      assertThat(synced.protocolName()).isEqualTo("range");
      assertThat(ConsumerProtocol.deserializeAssignment(ByteBuffer.wrap(synced.assignment())).partitions())
          .containsExactly(new TopicPartition("t", 0), new TopicPartition("t", 1));

      assertThat(Errors.forCode(heartbeat(wire, "g-sync", joined.generationId(), joined.memberId()).errorCode()))
          .isEqualTo(Errors.NONE);
      assertThat(Errors.forCode(heartbeat(wire, "g-sync", joined.generationId(), "nobody").errorCode()))
          .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
      assertThat(Errors.forCode(heartbeat(wire, "no-such-group", 1, "nobody").errorCode()))
          .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }
  }

  @Test
  void leaveGroupBelowV3NamesOneMemberFromV3ABatchAnsweredPerMember() throws Exception {
    try (KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
      JoinGroupResponseData a = join(wire, (short) 3, "g-leave", "");
      sync(wire, "g-leave", a.generationId(), a.memberId(), new byte[0]);
      LeaveGroupResponseData v0 = leave(wire, (short) 0, "g-leave", new LeaveGroupRequestData().setGroupId("g-leave")
          .setMemberId(a.memberId()));
      assertThat(Errors.forCode(v0.errorCode())).isEqualTo(Errors.NONE);
      LeaveGroupResponseData again = leave(wire, (short) 0, "g-leave", new LeaveGroupRequestData()
          .setGroupId("g-leave").setMemberId(a.memberId()));
      assertThat(Errors.forCode(again.errorCode())).as("it left already").isEqualTo(Errors.UNKNOWN_MEMBER_ID);

      // Another group: g-leave, empty with no offsets, may be deleted by the tick right now (D54), and a
      // join that crosses the deletion is answered UNKNOWN_MEMBER_ID (the client joins again).
      JoinGroupResponseData b = join(wire, (short) 3, "g-leave-batch", "");
      assertThat(Errors.forCode(b.errorCode())).isEqualTo(Errors.NONE);
      sync(wire, "g-leave-batch", b.generationId(), b.memberId(), new byte[0]);
      LeaveGroupRequestData batch = new LeaveGroupRequestData().setGroupId("g-leave-batch").setMembers(List.of(
          new LeaveGroupRequestData.MemberIdentity().setMemberId("ghost"),
          new LeaveGroupRequestData.MemberIdentity().setMemberId(b.memberId()).setReason("done")));
      LeaveGroupResponseData v5 = leave(wire, (short) 5, "g-leave-batch", batch);
      assertThat(Errors.forCode(v5.errorCode())).isEqualTo(Errors.NONE);
      assertThat(v5.members()).extracting(LeaveGroupResponseData.MemberResponse::memberId, m -> Errors.forCode(m.errorCode()))
          .containsExactly(org.assertj.core.groups.Tuple.tuple("ghost", Errors.UNKNOWN_MEMBER_ID),
              org.assertj.core.groups.Tuple.tuple(b.memberId(), Errors.NONE));

      // As Kafka 4.3.1 answers: a group that does not exist has none of the members, each one's error.
      LeaveGroupResponseData noGroup = leave(wire, (short) 5, "g-none", new LeaveGroupRequestData().setGroupId("g-none")
          .setMembers(List.of(new LeaveGroupRequestData.MemberIdentity().setMemberId("m"))));
      assertThat(Errors.forCode(noGroup.errorCode())).isEqualTo(Errors.NONE);
      assertThat(noGroup.members()).singleElement().satisfies(m ->
          assertThat(Errors.forCode(m.errorCode())).isEqualTo(Errors.UNKNOWN_MEMBER_ID));
      assertThat(Errors.forCode(leave(wire, (short) 0, "g-none", new LeaveGroupRequestData().setGroupId("g-none")
          .setMemberId("m")).errorCode())).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }
  }

  @Test
  void aJoinParkedOnAClosedConnectionKeepsItsMemberWhichRejoinsWithItsId() throws Exception {
    try (KafkaWire leaderWire = new KafkaWire(broker.kafkaPort())) {
      JoinGroupResponseData a = joinNew(leaderWire, (short) 5, "g-close");
      sync(leaderWire, "g-close", a.generationId(), a.memberId(), new byte[0]);

      KafkaWire other = new KafkaWire(broker.kafkaPort());
      String newcomer = join(other, (short) 5, "g-close", "").memberId(); // MEMBER_ID_REQUIRED
      other.write(KafkaWire.frame(ApiKeys.JOIN_GROUP, (short) 5, ++correlation, joinRequest("g-close", newcomer)));
      // The newcomer's join is on another connection: the leader hears of the rebalance once it is in.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SESSION_MS / 1000);
      Errors heard = Errors.NONE;
      while (heard == Errors.NONE && System.nanoTime() < deadline) {
        heard = Errors.forCode(heartbeat(leaderWire, "g-close", a.generationId(), a.memberId()).errorCode());
        Thread.sleep(20);
      }
      assertThat(heard).as("the leader hears of the rebalance").isEqualTo(Errors.REBALANCE_IN_PROGRESS);
      other.close(); // its join was parked: the member must stay

      try (KafkaWire again = new KafkaWire(broker.kafkaPort())) {
        int id = ++correlation;
        again.write(KafkaWire.frame(ApiKeys.JOIN_GROUP, (short) 5, id, joinRequest("g-close", newcomer)));
        JoinGroupResponseData leader = join(leaderWire, (short) 5, "g-close", a.memberId());
        assertThat(Errors.forCode(leader.errorCode())).isEqualTo(Errors.NONE);
        assertThat(leader.generationId()).isEqualTo(a.generationId() + 1);
        assertThat(leader.members()).extracting(JoinGroupResponseData.JoinGroupResponseMember::memberId)
            .containsExactlyInAnyOrder(a.memberId(), newcomer);
        JoinGroupResponseData back = (JoinGroupResponseData) RawKafka.read(again, ApiKeys.JOIN_GROUP, (short) 5, id);
        assertThat(Errors.forCode(back.errorCode())).as("it rejoined with its id").isEqualTo(Errors.NONE);
        assertThat(back.generationId()).isEqualTo(leader.generationId());
      }
    }
  }

  static JoinGroupRequestData joinRequest(String group, String memberId) {
    byte[] subscription = ConsumerProtocol.serializeSubscription(new Subscription(List.of("t"))).array();
    JoinGroupRequestProtocolCollection protocols = new JoinGroupRequestProtocolCollection();
    protocols.add(new JoinGroupRequestProtocol().setName("range").setMetadata(subscription));
    return new JoinGroupRequestData().setGroupId(group).setSessionTimeoutMs(SESSION_MS).setRebalanceTimeoutMs(SESSION_MS)
        .setMemberId(memberId).setProtocolType("consumer").setProtocols(protocols);
  }

  static JoinGroupResponseData join(KafkaWire wire, short version, String group, String memberId) throws Exception {
    int id = ++correlation;
    wire.write(KafkaWire.frame(ApiKeys.JOIN_GROUP, version, id, joinRequest(group, memberId)));
    return (JoinGroupResponseData) RawKafka.read(wire, ApiKeys.JOIN_GROUP, version, id);
  }

  /** A new member's join from v4: MEMBER_ID_REQUIRED, then the join with that id. */
  static JoinGroupResponseData joinNew(KafkaWire wire, short version, String group) throws Exception {
    JoinGroupResponseData first = join(wire, version, group, "");
    assertThat(Errors.forCode(first.errorCode())).isEqualTo(Errors.MEMBER_ID_REQUIRED);
    JoinGroupResponseData joined = join(wire, version, group, first.memberId());
    assertThat(Errors.forCode(joined.errorCode())).isEqualTo(Errors.NONE);
    return joined;
  }

  static SyncGroupResponseData sync(KafkaWire wire, String group, int generation, String memberId, byte[] assignment)
      throws Exception {
    int id = ++correlation;
    SyncGroupRequestData body = new SyncGroupRequestData().setGroupId(group).setGenerationId(generation)
        .setMemberId(memberId).setProtocolType("consumer").setProtocolName("range");
    if (assignment != null) {
      body.assignments().add(new SyncGroupRequestData.SyncGroupRequestAssignment().setMemberId(memberId)
          .setAssignment(assignment));
    }
    wire.write(KafkaWire.frame(ApiKeys.SYNC_GROUP, (short) 5, id, body));
    return (SyncGroupResponseData) RawKafka.read(wire, ApiKeys.SYNC_GROUP, (short) 5, id);
  }

  static HeartbeatResponseData heartbeat(KafkaWire wire, String group, int generation, String memberId)
      throws Exception {
    int id = ++correlation;
    wire.write(KafkaWire.frame(ApiKeys.HEARTBEAT, (short) 4, id, new HeartbeatRequestData().setGroupId(group)
        .setGenerationId(generation).setMemberId(memberId)));
    return (HeartbeatResponseData) RawKafka.read(wire, ApiKeys.HEARTBEAT, (short) 4, id);
  }

  static LeaveGroupResponseData leave(KafkaWire wire, short version, String group, LeaveGroupRequestData body)
      throws Exception {
    int id = ++correlation;
    wire.write(KafkaWire.frame(ApiKeys.LEAVE_GROUP, version, id, body));
    return (LeaveGroupResponseData) RawKafka.read(wire, ApiKeys.LEAVE_GROUP, version, id);
  }
}
