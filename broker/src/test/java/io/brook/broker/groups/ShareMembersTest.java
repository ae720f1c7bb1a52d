package io.brook.broker.groups;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.delivery.Delivery;
import io.brook.broker.disk.DiskGuard;
import io.brook.broker.disk.DiskLimits;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.share.ShareFetchStart;
import io.brook.broker.groups.share.ShareHeartbeatAnswer;
import io.brook.broker.records.LogRecord;
import io.brook.broker.storage.MemoryLog;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.topics.TopicConfig;
import io.brook.broker.topics.TopicManager;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Kafka share members in an ack group: heartbeats, share sessions, acknowledgements and leaving. */
class ShareMembersTest {
  @TempDir Path dir;
  TopicManager topics;
  GroupManager groups;
  AckGroup group;

  @BeforeEach
  void setUp() {
    topics = new TopicManager(dir, TopicConfig.defaults(-1, -1, SegmentRoll.HOUR, 1 << 20), 1, MemoryLog::open,
        InstantSource.system());
    topics.recover();
    List<LogRecord> records = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      records.add(LogRecord.of(null, new byte[] {(byte) i}, -1, List.of()));
    }
    io.brook.broker.topics.Appends.append(topics.create("t", 1, Map.of()).partition(0), records);
    DiskGuard disk = new DiskGuard(() -> Long.MAX_VALUE, new DiskLimits(0, 0, 0, 60_000), () -> 0,
        (from, to, message) -> { }, dir.toString());
    // The dispatch runs on the calling thread: a fetch's records are there when it returns.
    groups = new GroupManager(dir, new GroupContext(topics, InstantSource.system(), Runnable::run, 100, 100_000,
        3000, disk), MemoryLog::open, 100_000);
    groups.recover();
    groups.create("g", GroupMode.ACK, Map.of("auto.offset.reset", "earliest"));
    group = groups.ackGroup("g", false);
  }

  @AfterEach
  void tearDown() {
    groups.close();
    topics.close();
  }

  ShareHeartbeatAnswer join(String member) {
    return group.shareHeartbeat(member, 0, List.of("t"), "client-" + member, "host", null);
  }

  ShareFetchStart fetch(String member, int epoch, Settlement acks, int maxRecords) {
    return group.shareFetch(member, null, epoch, List.of(new TopicPartition("t", 0)), List.of(), acks, true, maxRecords,
        1 << 20);
  }

  static Settlement none() {
    return new Settlement(List.of(), List.of(), List.of());
  }

  static Settlement accept(long first, long last) {
    return new Settlement(List.of(new Settlement.Range("t", 0, first, last)), List.of(), List.of());
  }

  static List<Long> offsets(ShareFetchStart s) {
    return s.records().join().stream().map(d -> d.record().offset()).toList();
  }

  @Test
  void aJoiningMemberIsAssignedEveryPartitionOfItsTopicsAndTheGroupEpochMoves() {
    ShareHeartbeatAnswer a = join("m1");
    assertThat(a.memberEpoch()).isEqualTo(1);
    assertThat(a.assignment()).singleElement().satisfies(tp -> assertThat(tp.partitions()).containsExactly(0));
    assertThat(join("m2").memberEpoch()).isEqualTo(2);
    assertThat(group.describe().generation()).isEqualTo(2);
    assertThat(group.describe().members()).extracting(GroupView.Member::clientId).containsExactly("client-m1",
        "client-m2");
    // A heartbeat at its epoch with nothing changed carries no assignment.
    assertThat(group.shareHeartbeat("m1", 1, null, "", "host", null).assignment()).isNull();
  }

  @Test
  void aNewPartitionChangesTheAssignmentAndAnOlderEpochGetsItAgain() {
    join("m1");
    topics.addPartitions("t", 2);
    ShareHeartbeatAnswer a = group.shareHeartbeat("m1", 1, null, "", "host", null);
    assertThat(a.memberEpoch()).isEqualTo(2);
    assertThat(a.assignment().get(0).partitions()).containsExactly(0, 1);
    ShareHeartbeatAnswer again = group.shareHeartbeat("m1", 1, null, "", "host", null); // lost the answer above
    assertThat(again.memberEpoch()).isEqualTo(2);
    assertThat(again.assignment()).isNotNull();
  }

  @Test
  void heartbeatsOfUnknownMembersOrFutureEpochsAreRefused() {
    assertThatThrownBy(() -> group.shareHeartbeat("nobody", 3, null, "", "host", null))
        .isInstanceOfSatisfying(MemberFaultException.class,
            e -> assertThat(e.fault()).isEqualTo(MemberFault.UNKNOWN_MEMBER_ID));
    join("m1");
    assertThatThrownBy(() -> group.shareHeartbeat("m1", 7, null, "", "host", null))
        .isInstanceOfSatisfying(MemberFaultException.class,
            e -> assertThat(e.fault()).isEqualTo(MemberFault.FENCED_MEMBER_EPOCH));
    assertThatThrownBy(() -> group.shareHeartbeat("m2", 0, List.of(), "", "host", null))
        .isInstanceOfSatisfying(MemberFaultException.class,
            e -> assertThat(e.fault()).isEqualTo(MemberFault.INVALID_REQUEST));
  }

  @Test
  void aSessionFetchesUpToMaxRecordsAndItsAcknowledgementsMakeRoom() {
    join("m1");
    assertThat(offsets(fetch("m1", 0, none(), 4))).containsExactly(0L, 1L, 2L, 3L);
    ShareFetchStart next = fetch("m1", 1, accept(0, 3), 4);
    assertThat(next.ackFailures()).isEmpty();
    assertThat(offsets(next)).containsExactly(4L, 5L, 6L, 7L);
    // Acknowledging what it no longer holds is refused for those offsets alone.
    ShareFetchStart third = fetch("m1", 2, accept(0, 7), 4);
    assertThat(third.ackFailures()).singleElement().satisfies(f -> {
      assertThat(f.first()).isEqualTo(0);
      assertThat(f.last()).isEqualTo(3);
    });
    assertThat(offsets(third)).containsExactly(8L, 9L);
    assertThat(group.describe().partitions().get(0).committed()).isEqualTo(8);
  }

  @Test
  void sessionEpochsAreCheckedAndAcknowledgementsNeedAnOpenSession() {
    join("m1");
    assertThatThrownBy(() -> fetch("m1", 1, none(), 4)).isInstanceOfSatisfying(MemberFaultException.class,
        e -> assertThat(e.fault()).isEqualTo(MemberFault.SHARE_SESSION_NOT_FOUND));
    assertThatThrownBy(() -> fetch("m1", 0, accept(0, 0), 4)).isInstanceOfSatisfying(MemberFaultException.class,
        e -> assertThat(e.fault()).isEqualTo(MemberFault.INVALID_REQUEST));
    fetch("m1", 0, none(), 4);
    assertThatThrownBy(() -> fetch("m1", 2, none(), 4)).isInstanceOfSatisfying(MemberFaultException.class,
        e -> assertThat(e.fault()).isEqualTo(MemberFault.INVALID_SHARE_SESSION_EPOCH));
    assertThat(fetch("m1", 1, none(), 4).records()).isNotNull();
    // Closing the session hands back what the member holds: another member gets it.
    assertThat(fetch("m1", -1, none(), 4).records()).isNull();
    join("m2");
    assertThat(offsets(fetch("m2", 0, none(), 10))).startsWith(0L, 1L, 2L, 3L);
    assertThatThrownBy(() -> fetch("m1", 3, none(), 4)).isInstanceOfSatisfying(MemberFaultException.class,
        e -> assertThat(e.fault()).isEqualTo(MemberFault.SHARE_SESSION_NOT_FOUND));
  }

  @Test
  void aMemberThatLeavesOrStopsHeartbeatingHandsItsRecordsToTheOthers() {
    join("m1");
    join("m2");
    assertThat(offsets(fetch("m1", 0, none(), 5))).containsExactly(0L, 1L, 2L, 3L, 4L);
    assertThat(offsets(fetch("m2", 0, none(), 5))).containsExactly(5L, 6L, 7L, 8L, 9L);
    group.shareHeartbeat("m2", -1, null, "", "host", null);
    List<Delivery> again = fetch("m1", 1, accept(0, 4), 10).records().join();
    assertThat(again).extracting(d -> d.record().offset()).containsExactly(5L, 6L, 7L, 8L, 9L);
    assertThat(again).allSatisfy(d -> assertThat(d.attempt()).isEqualTo(2));
    // m1 stops heartbeating: past share.session.timeout.ms it is gone, and its records with it.
    group.tick(System.currentTimeMillis() + 46_000);
    assertThat(group.describe().members()).isEmpty();
    assertThatThrownBy(() -> group.shareHeartbeat("m1", 1, null, "", "host", null))
        .isInstanceOf(MemberFaultException.class);
    assertThat(group.describe().partitions().get(0).unsettled()).isEqualTo(5);
  }

  @Test
  void aGroupHoldsAtMostMaxMembersShareMembers() {
    for (int i = 0; i < ShareMembers.MAX_MEMBERS; i++) {
      join("m" + i);
    }
    assertThatThrownBy(() -> join("one-more")).isInstanceOfSatisfying(MemberFaultException.class,
        e -> assertThat(e.fault()).isEqualTo(MemberFault.GROUP_MAX_SIZE_REACHED));
    group.shareHeartbeat("m0", -1, null, "", "host", null);
    assertThat(join("one-more").memberEpoch()).isPositive();
  }

  @Test
  void aShareMembersRecordsAreSettledOnItsShareSessionOnlyNotByGrpcSettle() {
    join("m1");
    fetch("m1", 0, none(), 4);
    assertThatThrownBy(() -> group.member("m1", null)).isInstanceOf(BrokerException.class)
        .hasMessageContaining("is not in group");
  }

  @Test
  void aGrpcMemberCannotTakeAShareMembersId() {
    join("m1");
    assertThatThrownBy(() -> group.connect("m1", List.of("t"),
        new io.brook.broker.delivery.CollectingSink(ds -> { }), 10, 1 << 20, "grpc", null))
        .isInstanceOf(BrokerException.class).hasMessageContaining("Kafka share member");
  }
}
