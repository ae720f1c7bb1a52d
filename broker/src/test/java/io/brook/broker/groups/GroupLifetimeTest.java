package io.brook.broker.groups;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.disk.DiskGuard;
import io.brook.broker.disk.DiskLimits;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.classic.ClassicJoin;
import io.brook.broker.groups.classic.ClassicMembership;
import io.brook.broker.groups.classic.ClassicProtocol;
import io.brook.broker.groups.classic.JoinAnswer;
import io.brook.broker.groups.classic.MemberIdentity;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.storage.chronicle.ChronicleLog;
import io.brook.broker.topics.TopicConfig;
import io.brook.broker.topics.TopicManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Group ids that are not Brook names, and how long groups live: on files (Chronicle journals), with
 * the broker's restart played by closing and reopening the managers, under a clock the test moves.
 */
class GroupLifetimeTest {
  static final long RETENTION_MS = 60_000;

  @TempDir Path dir;
  final AtomicLong nowMs = new AtomicLong(1_000_000);
  final InstantSource clock = () -> Instant.ofEpochMilli(nowMs.get());
  TopicManager topics;
  GroupManager groups;

  @BeforeEach
  void start() {
    open();
    topics.create("t", 2, Map.of());
  }

  void open() {
    topics = new TopicManager(dir, TopicConfig.defaults(-1, -1, SegmentRoll.HOUR, 1 << 20), 1, ChronicleLog::open,
        clock);
    topics.recover();
    DiskGuard disk = new DiskGuard(() -> Long.MAX_VALUE, new DiskLimits(0, 0, 0, 60_000), () -> 0,
        (from, to, message) -> { }, dir.toString());
    groups = new GroupManager(dir, new GroupContext(topics, clock, Runnable::run, 100, 100_000, 3000, disk),
        ChronicleLog::open, 100_000);
    groups.retention(RETENTION_MS);
    groups.recover();
  }

  void restart() {
    groups.close();
    topics.close();
    open();
  }

  @AfterEach
  void stop() {
    groups.close();
    topics.close();
  }

  void append(int records) throws Exception {
    var topic = topics.get("t");
    for (int i = 0; i < records; i++) {
      topic.partition(0).append(new io.brook.broker.topics.BatchValidator(10).validate(topic, "test",
          new io.brook.broker.records.IncomingBatch.Listed(List.of(
              io.brook.broker.records.LogRecord.of(null, new byte[] {1}, nowMs.get(), List.of())))), nowMs.get());
    }
  }

  List<CommitOutcome> commit(String group, long offset) {
    return groups.kafkaGroup(group, true).kafkaCommit("", null, -1,
        List.of(new CommitRequest(new TopicPartition("t", 0), offset, "")), null);
  }

  List<String> directories() throws Exception {
    try (Stream<Path> s = Files.list(dir.resolve("groups"))) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void idsThatAreNotBrookNamesGetHashedDirectoriesAndKeepTheirNamesAcrossARestart() throws Exception {
    append(3);
    List<String> ids = List.of("console-consumer:42", "../escape", "a/b", "with space", "caf\u00e9", "x".repeat(255),
        "plain-name");
    for (String id : ids) {
      assertThat(commit(id, 2)).allSatisfy(o -> assertThat(o.error()).isNull());
    }
    assertThat(directories()).hasSize(ids.size()).contains("plain-name")
        .allSatisfy(d -> assertThat(d).matches("plain-name|~[0-9a-f]{64}"));
    assertThat(Files.exists(dir.resolve("escape"))).isFalse();

    restart();
    assertThat(groups.list()).extracting(Group::name).containsExactlyInAnyOrderElementsOf(ids);
    for (String id : ids) {
      assertThat(groups.committed(id, t -> true).get(new TopicPartition("t", 0)).offset()).as(id).isEqualTo(2);
      assertThat(groups.get(id).implicit()).isTrue();
    }
    groups.delete("a/b");
    assertThat(directories()).hasSize(ids.size() - 1);
    restart();
    assertThat(groups.find("a/b")).isNull();
  }

  @Test
  void idsAreCheckedAndGrpcKeepsItsNameRule() {
    for (String bad : List.of("", "y".repeat(256), "new\nline", "nul\u0000")) {
      assertThatThrownBy(() -> groups.kafkaGroup(bad, true)).isInstanceOf(BrokerException.class)
          .satisfies(e -> assertThat(((BrokerException) e).error()).isEqualTo(BrokerError.INVALID_REQUEST));
    }
    assertThatThrownBy(() -> groups.offsetGroup("a/b", true)).hasMessageContaining("invalid group name");
    assertThatThrownBy(() -> groups.create("a:b", GroupMode.OFFSET, Map.of())).hasMessageContaining("invalid group name");
    assertThat(groups.list()).isEmpty();
  }

  @Test
  void anImplicitGroupWithoutOffsetsGoesWhenItsLastMemberLeaves() throws Exception {
    OffsetGroup kafkaMade = groups.kafkaGroup("throwaway", true);
    OffsetGroup grpcMade = groups.offsetGroup("kept", true);
    groups.tick();
    assertThat(groups.find("throwaway")).as("created, never had a member: not yet").isNotNull();
    for (OffsetGroup g : List.of(kafkaMade, grpcMade)) {
      JoinResult joined = g.join(new JoinRequest("", "c", "127.0.0.1", List.of("t"), 10_000, 10_000, null)).get();
      g.leave(joined.memberId(), null);
    }
    groups.tick();
    assertThat(groups.find("throwaway")).isNull();
    assertThat(groups.find("kept")).as("created by gRPC: kept until retention").isNotNull();
    assertThat(directories()).containsExactly("kept");
  }

  @Test
  void anImplicitGroupWhoseOffsetsAnOperatorDeletedStaysUntilDeletedOrExpired() throws Exception {
    append(3);
    commit("billing", 2);
    OffsetGroup g = groups.kafkaGroup("billing", false);
    JoinResult joined = g.join(new JoinRequest("", "c", "127.0.0.1", List.of("t"), 10_000, 10_000, null)).get();
    g.leave(joined.memberId(), null);
    groups.tick();
    assertThat(g.deleteOffsets(List.of(new TopicPartition("t", 0)))).allSatisfy(d -> assertThat(d.error()).isNull());
    groups.tick();
    assertThat(groups.find("billing")).as("kafka-consumer-groups --delete-offsets, then --delete: the group is there")
        .isNotNull();
    nowMs.addAndGet(RETENTION_MS);
    groups.tick();
    assertThat(groups.find("billing")).as("expired").isNull();
  }

  @Test
  void anEmptiedGroupStaysWhileAMemberIdItHandedOutHasNotJoinedYet() throws Exception {
    OffsetGroup g = groups.kafkaGroup("console", true);
    synchronized (g) {
      ClassicMembership classic = g.membership(ClassicMembership.class, GroupProtocol.CLASSIC,
          host -> new ClassicMembership(host, 0));
      JoinAnswer first = classic.join(classicJoin("", false)).get();
      classic.leave(List.of(new MemberIdentity(first.memberId(), null)), null); // emptied: it may go now
      JoinAnswer next = classic.join(classicJoin("", true)).get();
      assertThat(next.fault()).isEqualTo(MemberFault.MEMBER_ID_REQUIRED); // its client joins again with this id
    }
    groups.tick();
    assertThat(groups.find("console")).as("a member is on its way in").isNotNull();
  }

  @Test
  void aKafkaProtocolBackAfterGrpcMembersIsJournaledAgain() throws Exception {
    OffsetGroup g = groups.kafkaGroup("both", true);
    synchronized (g) {
      g.membership(ClassicMembership.class, GroupProtocol.CLASSIC, host -> new ClassicMembership(host, 0));
    }
    JoinResult grpc = g.join(new JoinRequest("", "c", "127.0.0.1", List.of("t"), 10_000, 10_000, null)).get();
    g.leave(grpc.memberId(), null);
    assertThat(g.protocol()).isEqualTo(GroupProtocol.BROOK);
    synchronized (g) {
      g.membership(ClassicMembership.class, GroupProtocol.CLASSIC, host -> new ClassicMembership(host, 0));
    }
    assertThat(g.protocol()).isEqualTo(GroupProtocol.CLASSIC);
    restart();
    assertThat(groups.kafkaGroup("both", false).protocol()).isEqualTo(GroupProtocol.CLASSIC);
  }

  private static ClassicJoin classicJoin(String memberId, boolean v4) {
    return new ClassicJoin(memberId, null, "c", "/127.0.0.1", 10_000, 30_000, "consumer",
        List.of(new ClassicProtocol("range", new byte[0], List.of("t"))), v4, false, null);
  }

  @Test
  void anImplicitGroupWithOffsetsStaysWhenItsLastMemberLeaves() throws Exception {
    append(3);
    commit("billing", 1);
    OffsetGroup g = groups.kafkaGroup("billing", false);
    JoinResult joined = g.join(new JoinRequest("", "c", "127.0.0.1", List.of("t"), 10_000, 10_000, null)).get();
    g.leave(joined.memberId(), null);
    groups.tick();
    assertThat(groups.find("billing")).isNotNull();
  }

  @Test
  void emptyGroupsExpireAfterTheRetentionSinceTheirLastCommitOrMember() throws Exception {
    append(3);
    commit("old", 1);
    OffsetGroup live = groups.offsetGroup("live", true);
    live.join(new JoinRequest("", "c", "127.0.0.1", List.of("t"), 10_000_000, 10_000, null)).get();
    nowMs.addAndGet(RETENTION_MS / 2);
    commit("old", 2); // a commit renews it
    nowMs.addAndGet(RETENTION_MS - 1);
    groups.tick();
    assertThat(groups.find("old")).isNotNull();
    nowMs.addAndGet(1);
    groups.tick();
    assertThat(groups.find("old")).isNull();
    assertThat(groups.find("live")).as("a group with members never expires").isNotNull();
  }

  @Test
  void aRestartCountsAsTheTimeTheGroupBecameEmpty() throws Exception {
    append(3);
    commit("g", 1);
    nowMs.addAndGet(RETENTION_MS * 2); // the broker was down all that time
    restart();
    groups.tick();
    assertThat(groups.find("g")).as("its members were there until the stop, for all we know").isNotNull();
    nowMs.addAndGet(RETENTION_MS);
    groups.tick();
    assertThat(groups.find("g")).isNull();
  }

  @Test
  void theProtocolSurvivesARestartEvenWithGenerationsAfterIt() throws Exception {
    OffsetGroup g = groups.kafkaGroup("classic", true);
    synchronized (g) {
      g.write(List.of(new JournalEvent.Protocol(GroupProtocol.CLASSIC), new JournalEvent.Generation(4)));
    }
    OffsetGroup brook = groups.offsetGroup("brook", true);
    JoinResult joined = brook.join(new JoinRequest("", "c", "127.0.0.1", List.of("t"), 10_000, 10_000, null)).get();
    brook.leave(joined.memberId(), null);
    restart();
    assertThat(groups.get("classic").protocol()).isEqualTo(GroupProtocol.CLASSIC);
    assertThat(groups.kafkaGroup("classic", false).generation()).isEqualTo(4);
    assertThat(groups.get("brook").protocol()).isEqualTo(GroupProtocol.BROOK);
    assertThat(groups.get("brook").protocolType()).isEqualTo("consumer");
    assertThat(groups.get("classic").implicit()).isTrue();
    assertThat(groups.get("brook").implicit()).isFalse();
  }
}
