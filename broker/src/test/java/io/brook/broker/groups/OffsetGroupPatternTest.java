package io.brook.broker.groups;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * An offset-mode member subscribed by topic_pattern gets the partitions of the existing topics its
 * pattern matches (among those it may consume), resolved at every rebalance; the group's tick
 * re-matches, so a matching topic created or deleted starts a rebalance, and another does not.
 */
class OffsetGroupPatternTest extends OffsetGroupTestBase {
  static final long SESSION_MS = 30_000;


  @Override
  Map<String, Integer> topicsToCreate() {
    return Map.of("a1", 2, "a2", 1, "b", 1);
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
