package io.brook.broker.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.disk.DiskGuard;
import io.brook.broker.disk.DiskLimits;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.CommitRequest;
import io.brook.broker.groups.GroupContext;
import io.brook.broker.groups.GroupManager;
import io.brook.broker.groups.GroupMode;
import io.brook.broker.groups.GroupProtocol;
import io.brook.broker.groups.JoinRequest;
import io.brook.broker.groups.MemberFault;
import io.brook.broker.groups.MemberFaultException;
import io.brook.broker.groups.TopicPartition;
import io.brook.broker.groups.classic.ClassicJoin;
import io.brook.broker.groups.classic.ClassicProtocol;
import io.brook.broker.groups.classic.ClassicSync;
import io.brook.broker.groups.classic.JoinAnswer;
import io.brook.broker.groups.classic.MemberAssignment;
import io.brook.broker.groups.consumer.ConsumerHeartbeat;
import io.brook.broker.groups.consumer.MigrationPolicy;
import io.brook.broker.groups.consumer.ConsumerSettings;
import io.brook.broker.groups.consumer.HeartbeatAnswer;
import io.brook.broker.groups.consumer.TopicPartitions;
import io.brook.broker.storage.MemoryLog;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.topics.TopicConfig;
import io.brook.broker.topics.TopicManager;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The KIP-848 core on real groups: its request checks, the group it makes, and commits fenced by member epoch. */
class ConsumerGroupServiceTest {
  @TempDir Path dir;
  TopicManager topics;
  GroupManager manager;
  ConsumerGroupService consumers;
  GroupService groups;

  @BeforeEach
  void setUp() {
    topics = new TopicManager(dir, TopicConfig.defaults(-1, -1, SegmentRoll.HOUR, 1 << 20), 1, MemoryLog::open,
        InstantSource.system());
    topics.recover();
    topics.create("orders", 2, Map.of());
    DiskGuard disk = new DiskGuard(() -> Long.MAX_VALUE, new DiskLimits(0, 0, 0, 60_000), () -> 0,
        (from, to, message) -> { }, dir.toString());
    manager = new GroupManager(dir, new GroupContext(topics, InstantSource.system(), Runnable::run, 1000, 60_000,
        3000, disk), MemoryLog::open, 100_000);
    manager.recover();
    consumers = new ConsumerGroupService(manager, new ConsumerSettings(500, 45_000));
    groups = new GroupService(manager, 1000, 60_000);
  }

  @AfterEach
  void tearDown() {
    manager.close();
    topics.close();
  }

  private static ConsumerHeartbeat join(String group, String member, List<TopicPartitions> owned) {
    return new ConsumerHeartbeat(group, member, 0, null, null, 30_000, List.of("orders"), null, null, owned, "c",
        "/127.0.0.1", null);
  }

  private static ConsumerHeartbeat beat(String group, String member, int epoch) {
    return new ConsumerHeartbeat(group, member, epoch, null, null, -1, null, null, null, null, "c", "/127.0.0.1", null);
  }

  @Test
  void malformedHeartbeatsAreRefusedAsKafkaRefusesThem() {
    assertRefused(consumers.heartbeat(join("", "m1", List.of()), true), MemberFault.INVALID_REQUEST, "GroupId");
    assertRefused(consumers.heartbeat(join("g", "", List.of()), true), MemberFault.INVALID_REQUEST, "MemberId");
    assertRefused(consumers.heartbeat(join("g", "m1", null), true), MemberFault.INVALID_REQUEST, "TopicPartitions");
    assertRefused(consumers.heartbeat(beat("g", "m1", -3), true), MemberFault.INVALID_REQUEST, "MemberEpoch");
    assertRefused(consumers.heartbeat(beat("g", "m1", -2), true), MemberFault.INVALID_REQUEST, "InstanceId");
    assertRefused(consumers.heartbeat(new ConsumerHeartbeat("g", "m1", 0, null, null, 30_000, null, null, null,
        List.of(), "c", "h", null), true), MemberFault.INVALID_REQUEST, "SubscribedTopicNames");
    assertRefused(consumers.heartbeat(new ConsumerHeartbeat("g", "m1", 0, null, null, -1, List.of("orders"), null,
        null, List.of(), "c", "h", null), true), MemberFault.INVALID_REQUEST, "RebalanceTimeoutMs");
    assertRefused(consumers.heartbeat(beat("nowhere", "m1", 3), true), MemberFault.UNKNOWN_MEMBER_ID, "m1");
    assertThat(manager.list()).isEmpty(); // nothing was made by a refused request
  }

  @Test
  void version0LetsTheBrokerChooseTheMemberId() {
    HeartbeatAnswer a = consumers.heartbeat(join("g", "", List.of()), false);
    assertThat(a.fault()).isNull();
    assertThat(a.memberId()).isNotEmpty();
  }

  @Test
  void aJoinMakesAConsumerGroupAndItsCommitsAreFencedByTheMemberEpoch() {
    HeartbeatAnswer a = consumers.heartbeat(join("billing", "m1", List.of()), true);
    assertThat(a.fault()).isNull();
    assertThat(a.memberEpoch()).isEqualTo(1);
    assertThat(manager.offsetGroup("billing", false).protocol()).isEqualTo(GroupProtocol.CONSUMER);
    assertThat(consumers.describe("billing")).get().satisfies(d -> {
      assertThat(d.state()).isEqualTo("Stable");
      assertThat(d.members()).hasSize(1);
    });

    List<CommitRequest> offsets = List.of(new CommitRequest(new TopicPartition("orders", 0), 0, ""));
    var group = manager.offsetGroup("billing", false);
    assertThat(group.kafkaCommit("m1", null, 1, offsets, null)).hasSize(1);
    assertThatThrownBy(() -> group.kafkaCommit("m1", null, 0, offsets, null)).isInstanceOf(MemberFaultException.class)
        .extracting(e -> ((MemberFaultException) e).fault()).isEqualTo(MemberFault.STALE_MEMBER_EPOCH);
    assertThatThrownBy(() -> group.kafkaCommit("", null, -1, offsets, null)).isInstanceOf(MemberFaultException.class)
        .extracting(e -> ((MemberFaultException) e).fault()).isEqualTo(MemberFault.UNKNOWN_MEMBER_ID);

    // A gRPC member cannot join while the Kafka member is in.
    assertThatThrownBy(() -> groups.join("billing", new JoinRequest("", "grpc", "addr", List.of("orders"), 10_000,
        10_000, null))).isInstanceOf(BrokerException.class)
        .extracting(e -> ((BrokerException) e).error()).isEqualTo(BrokerError.INCONSISTENT_GROUP_MODE);

    assertThat(consumers.heartbeat(beat("billing", "m1", -1), true).memberEpoch()).isEqualTo(-1);
    assertThat(consumers.describe("billing")).get().extracting(d -> d.state()).isEqualTo("Empty");
  }

  @Test
  void groupsOfOtherKindsAreRefusedOrNotDescribed() {
    manager.create("acks", GroupMode.ACK, Map.of());
    assertRefused(consumers.heartbeat(join("acks", "m1", List.of()), true), MemberFault.INCONSISTENT_GROUP_PROTOCOL,
        "acks");
    assertThat(consumers.describe("acks")).isEmpty();
    groups.commit("offsets-only", "", 0, List.of(new CommitRequest(new TopicPartition("orders", 0), 0, "")), null);
    assertThat(consumers.describe("offsets-only")).isEmpty();
    assertThat(consumers.describe("nothing")).isEmpty();
  }

  /** A classic group of one consumer, stable with orders-0 and -1: its member id. */
  private String stableClassicMember(ClassicGroupService classic, String group) {
    List<ClassicProtocol> range = List.of(new ClassicProtocol("range", new byte[] {0}, List.of("orders")));
    JoinAnswer joined = classic.join(group, new ClassicJoin("", null, "kc", "/127.0.0.1", 10_000, 30_000, "consumer",
        range, false, true, null)).answer().join();
    assertThat(joined.fault()).isNull();
    MemberAssignment both = new MemberAssignment(new byte[] {1},
        List.of(new TopicPartition("orders", 0), new TopicPartition("orders", 1)));
    assertThat(classic.sync(group, new ClassicSync(joined.generation(), joined.memberId(), null, "consumer", "range",
        Map.of(joined.memberId(), both), null)).answer().join().fault()).isNull();
    return joined.memberId();
  }

  @Test
  void aRefusedKip848JoinLeavesTheClassicGroupAsItWasAndAnAcceptedOneUpgradesIt() {
    ClassicGroupService classic = new ClassicGroupService(manager, 0);
    String member = stableClassicMember(classic, "billing");
    int generation = manager.offsetGroup("billing", false).generation();

    ConsumerHeartbeat badAssignor = new ConsumerHeartbeat("billing", "k1", 0, null, null, 30_000, List.of("orders"),
        null, "sticky-ish", List.of(), "c", "/127.0.0.1", null);
    assertRefused(consumers.heartbeat(badAssignor, true), MemberFault.UNSUPPORTED_ASSIGNOR, "sticky-ish");
    // Still classic, still stable: the member's heartbeat is fine, no rebalance was started.
    assertThat(manager.offsetGroup("billing", false).protocol()).isEqualTo(GroupProtocol.CLASSIC);
    assertThat(classic.heartbeat("billing", member, null, generation, null)).isNull();

    HeartbeatAnswer k1 = consumers.heartbeat(join("billing", "k1", List.of()), true);
    assertThat(k1.fault()).isNull();
    assertThat(manager.offsetGroup("billing", false).protocol()).isEqualTo(GroupProtocol.CONSUMER);
    assertThat(classic.heartbeat("billing", member, null, generation, null))
        .isEqualTo(MemberFault.REBALANCE_IN_PROGRESS);
  }

  @Test
  void withTheUpgradeDisabledAKip848JoinToAClassicGroupIsGroupIdNotFoundAsKafka() {
    consumers = new ConsumerGroupService(manager, new ConsumerSettings(500, 45_000, MigrationPolicy.DOWNGRADE, 0));
    ClassicGroupService classic = new ClassicGroupService(manager, 0);
    stableClassicMember(classic, "billing");
    assertRefused(consumers.heartbeat(join("billing", "k1", List.of()), true), MemberFault.GROUP_ID_NOT_FOUND,
        "classic");
    assertThat(manager.offsetGroup("billing", false).protocol()).isEqualTo(GroupProtocol.CLASSIC);
  }

  private static void assertRefused(HeartbeatAnswer a, MemberFault fault, String inMessage) {
    assertThat(a.fault()).isEqualTo(fault);
    assertThat(a.message()).contains(inMessage);
  }
}
