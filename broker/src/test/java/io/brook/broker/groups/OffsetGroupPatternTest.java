package io.brook.broker.groups;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.disk.DiskGuard;
import io.brook.broker.disk.DiskLimits;
import io.brook.broker.storage.MemoryLog;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.topics.TopicConfig;
import io.brook.broker.topics.TopicManager;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An offset-mode member subscribed by topic_pattern gets the partitions of the existing topics its
 * pattern matches (among those it may consume), resolved at every rebalance; the group's tick
 * re-matches, so a matching topic created or deleted starts a rebalance, and another does not.
 */
class OffsetGroupPatternTest {
  static final long SESSION_MS = 30_000;

  @TempDir Path dir;
  final AtomicLong nowMs = new AtomicLong(1_000_000);
  TopicManager topics;
  GroupManager groups;
  OffsetGroup group;

  @BeforeEach
  void setUp() {
    InstantSource clock = () -> Instant.ofEpochMilli(nowMs.get());
    topics = new TopicManager(dir, TopicConfig.defaults(-1, -1, SegmentRoll.HOUR, 1 << 20), 1, MemoryLog::open, clock);
    topics.recover();
    topics.create("a1", 2, Map.of());
    topics.create("a2", 1, Map.of());
    topics.create("b", 1, Map.of());
    DiskGuard disk = new DiskGuard(() -> Long.MAX_VALUE, new DiskLimits(0, 0, 0, 60_000), () -> 0,
        (from, to, message) -> { }, dir.toString());
    groups = new GroupManager(dir, new GroupContext(topics, clock, Runnable::run, 100, 100_000, 3000, disk),
        MemoryLog::open, 100_000);
    groups.recover();
    group = groups.offsetGroup("g", true);
  }

  @AfterEach
  void tearDown() {
    groups.close();
    topics.close();
  }

  JoinResult join(String memberId, String pattern, Predicate<String> consumable) throws Exception {
    return group.join(new JoinRequest(memberId, "c", "127.0.0.1", List.of(), SESSION_MS, SESSION_MS, null, "",
        pattern, false, List.of()), consumable).get();
  }

  @Test
  void aPatternIsResolvedAmongTheExistingTopicsTheMemberMayConsume() throws Exception {
    JoinResult all = join("", "a.*", t -> true);
    assertThat(all.topics()).containsExactly("a1", "a2");
    assertThat(all.assignment()).containsExactlyInAnyOrder(new TopicPartition("a1", 0), new TopicPartition("a1", 1),
        new TopicPartition("a2", 0));
    assertThat(all.unknownTopics()).isEmpty();

    JoinResult some = join(all.memberId(), "a.*", t -> !t.equals("a2")); // a rejoin carries its caller's rights
    assertThat(some.topics()).containsExactly("a1");
    assertThat(some.assignment()).extracting(TopicPartition::topic).containsOnly("a1");
  }

  @Test
  void aCreatedMatchingTopicRebalancesTheGroupAtTheNextCheck() throws Exception {
    JoinResult first = join("", "a.*", t -> true);
    group.tick(nowMs.get());
    topics.create("b2", 1, Map.of()); // not matching: nothing happens
    nowMs.addAndGet(PatternSubscriptions.CHECK_INTERVAL_MS);
    group.tick(nowMs.get());
    assertThat(group.heartbeat(first.memberId(), first.generation(), 0, null)).isCompletedWithValue(false);

    topics.create("a3", 3, Map.of());
    nowMs.addAndGet(PatternSubscriptions.CHECK_INTERVAL_MS);
    group.tick(nowMs.get());
    assertThat(group.heartbeat(first.memberId(), first.generation(), 0, null)).as("told to rejoin")
        .isCompletedWithValue(true);
    JoinResult second = join(first.memberId(), "a.*", t -> true);
    assertThat(second.generation()).isEqualTo(first.generation() + 1);
    assertThat(second.topics()).containsExactly("a1", "a2", "a3");
    assertThat(second.assignment()).extracting(TopicPartition::topic).contains("a3").doesNotContain("b", "b2");
  }

  @Test
  void aDeletedMatchingTopicRebalancesItAway() throws Exception {
    JoinResult first = join("", "a.*", t -> true);
    CompletableFuture<Boolean> held = group.heartbeat(first.memberId(), first.generation(), 60_000, null);
    topics.delete("a2");
    assertThat(held).as("the held heartbeat hears of it").isCompletedWithValue(true);
    JoinResult second = join(first.memberId(), "a.*", t -> true);
    assertThat(second.topics()).containsExactly("a1");
    assertThat(second.assignment()).extracting(TopicPartition::topic).containsOnly("a1");
  }

  @Test
  void patternAndNameMembersShareAGroupEachGettingItsOwnTopics() throws Exception {
    CompletableFuture<JoinResult> byPattern = group.join(new JoinRequest("", "p", "127.0.0.1", List.of(), SESSION_MS,
        SESSION_MS, null, "", "a.*", false, List.of()), t -> true);
    JoinResult byPatternFirst = byPattern.get();
    CompletableFuture<JoinResult> byName = group.join(new JoinRequest("", "n", "127.0.0.1", List.of("b"), SESSION_MS,
        SESSION_MS, null));
    CompletableFuture<JoinResult> rejoin = group.join(new JoinRequest(byPatternFirst.memberId(), "p", "127.0.0.1",
        List.of(), SESSION_MS, SESSION_MS, null, "", "a.*", false, List.of()), t -> true);
    assertThat(byName.get().assignment()).containsExactly(new TopicPartition("b", 0));
    assertThat(byName.get().topics()).containsExactly("b");
    assertThat(rejoin.get().assignment()).extracting(TopicPartition::topic).containsOnly("a1", "a2");
  }
}
