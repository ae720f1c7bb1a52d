package io.brook.broker.groups;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/**
 * Static membership of a gRPC offset-mode group (KIP-345's rules): a join with a held instance id
 * takes the holder's place (fenced with MEMBER_REPLACED), answered at once in a stable group with
 * an unchanged subscription; a static member away keeps its partitions through a rebalance until
 * its session ends.
 */
class OffsetGroupStaticMemberTest extends OffsetGroupTestBase {
  static final long SESSION_MS = 6_000;
  /** Shorter than the session: a rebalance can end while a static member is away. */
  static final long REBALANCE_MS = 3_000;


  @Override
  Map<String, Integer> topicsToCreate() {
    return Map.of("t", 4, "u", 1);
  }

  static JoinRequest join(String memberId, String instanceId, String... subscribed) {
    return new JoinRequest(memberId, "c", "127.0.0.1", List.of(subscribed), SESSION_MS, REBALANCE_MS, null,
        instanceId, "", false, List.of());
  }

  /** A dynamic member, then a static one ("s1"): both in generation 2, two partitions each. */
  JoinResult[] twoMembers() throws Exception {
    JoinResult dynamic = done(group.join(join("", "", "t")));
    CompletableFuture<JoinResult> staticJoin = group.join(join("", "s1", "t"));
    assertThat(staticJoin).as("waits for the dynamic member to rejoin").isNotDone();
    JoinResult dynamicAgain = done(group.join(join(dynamic.memberId(), "", "t")));
    JoinResult stat = done(staticJoin);
    assertThat(stat.generation()).isEqualTo(2).isEqualTo(dynamicAgain.generation());
    assertThat(stat.assignment()).hasSize(2);
    return new JoinResult[] {dynamicAgain, stat};
  }

  @Test
  void aRestartedStaticMemberTakesItsPlaceWithoutARebalanceAndTheOlderIsFenced() throws Exception {
    JoinResult[] two = twoMembers();
    JoinResult dynamic = two[0];
    JoinResult before = two[1];
    assertThat(before.memberId()).startsWith("s1-");
    CompletableFuture<Boolean> othersHeartbeat = group.heartbeat(dynamic.memberId(), 2, 60_000, null);
    CompletableFuture<Boolean> oldHeartbeat = group.heartbeat(before.memberId(), 2, 60_000, null);

    CompletableFuture<JoinResult> restarted = group.join(join("", "s1", "t"));

    assertThat(restarted).as("answered at once: the group is stable, the subscription unchanged").isDone();
    JoinResult after = done(restarted);
    assertThat(after.memberId()).isNotEqualTo(before.memberId()).startsWith("s1-");
    assertThat(after.generation()).as("no rebalance").isEqualTo(2);
    assertThat(after.assignment()).as("the same partitions").isEqualTo(before.assignment());
    assertThat(group.state()).isEqualTo(GroupState.STABLE);
    assertThat(othersHeartbeat).as("the other member hears of no rebalance").isNotDone();
    assertThat(group.memberCount()).isEqualTo(2);

    assertFenced(oldHeartbeat, "the older member's held heartbeat");
    assertReplaced(() -> group.heartbeat(before.memberId(), 2, 0, null));
    assertReplaced(() -> group.commit(before.memberId(), 2, List.of(new CommitRequest(before.assignment().get(0), 1,
        "")), null));
    assertReplaced(() -> group.join(join(before.memberId(), "s1", "t")));
    assertReplaced(() -> {
      group.leave(before.memberId(), null);
      return null;
    });
    assertThat(group.heartbeat(after.memberId(), 2, 0, null)).isCompletedWithValue(false);
    assertThat(group.commit(after.memberId(), 2, List.of(new CommitRequest(after.assignment().get(0), 0, "")), null))
        .allMatch(o -> o.error() == null);
    assertThat(group.describe().members()).extracting(GroupView.Member::instanceId).containsExactlyInAnyOrder(null,
        "s1");
  }

  @Test
  void aJoinThatTakesOverDuringARebalanceEndsTheOlderJoinAndKeepsItsPartitions() throws Exception {
    JoinResult[] two = twoMembers();
    JoinResult dynamic = two[0];
    JoinResult before = two[1];
    CompletableFuture<JoinResult> third = group.join(join("", "", "t")); // a rebalance starts
    CompletableFuture<JoinResult> oldRejoin = group.join(join(before.memberId(), "s1", "t"));

    CompletableFuture<JoinResult> restarted = group.join(join("", "s1", "t"));
    assertFenced(oldRejoin, "the older member's pending join");
    assertThat(restarted).as("mid-rebalance it joins the rebalance").isNotDone();
    group.join(join(dynamic.memberId(), "", "t"));

    JoinResult after = done(restarted);
    assertThat(after.generation()).isEqualTo(3);
    assertThat(done(third).assignment()).hasSize(1);
    assertThat(before.assignment()).as("sticky: it keeps what it had, up to its share")
        .containsAll(after.assignment());
  }

  @Test
  void aStaticMemberAwayWithinItsSessionKeepsItsPartitionsThroughARebalance() throws Exception {
    JoinResult[] two = twoMembers();
    JoinResult dynamic = two[0];
    JoinResult before = two[1];
    CompletableFuture<JoinResult> third = group.join(join("", "", "t")); // while s1 is away (restarting)
    CompletableFuture<JoinResult> dynamicAgain = group.join(join(dynamic.memberId(), "", "t"));
    assertThat(third).as("the rebalance waits for s1 to rejoin").isNotDone();

    nowMs.addAndGet(REBALANCE_MS); // the rebalance timeout ends, s1's session has not
    group.tick(nowMs.get());
    assertThat(done(dynamicAgain).generation()).isEqualTo(3);
    assertThat(group.memberCount()).as("s1 stays: a static member goes only when its session ends").isEqualTo(3);
    List<TopicPartition> kept = ownedBy(before.memberId());
    assertThat(kept).as("s1, away, keeps its partitions, up to its share").isNotEmpty();
    assertThat(before.assignment()).containsAll(kept);
    assertThat(done(third).assignment()).doesNotContainAnyElementsOf(kept);

    JoinResult back = done(group.join(join("", "s1", "t")));
    assertThat(back.generation()).as("back without a rebalance").isEqualTo(3);
    assertThat(back.assignment()).containsExactlyInAnyOrderElementsOf(kept);
  }

  @Test
  void aStaticMemberWhoseHeartbeatsStopIsRemovedAtItsSessionTimeout() throws Exception {
    JoinResult[] two = twoMembers();
    JoinResult dynamic = two[0];
    nowMs.addAndGet(SESSION_MS - 1);
    assertThat(group.heartbeat(dynamic.memberId(), 2, 0, null)).isCompletedWithValue(false);
    group.tick(nowMs.get());
    assertThat(group.memberCount()).as("within its session it stays").isEqualTo(2);

    nowMs.addAndGet(2);
    CompletableFuture<Boolean> held = group.heartbeat(dynamic.memberId(), 2, 60_000, null);
    group.tick(nowMs.get());
    assertThat(group.memberCount()).isEqualTo(1);
    assertThat(held).as("the other member hears of the rebalance").isCompletedWithValue(true);
    JoinResult alone = done(group.join(join(dynamic.memberId(), "", "t")));
    assertThat(alone.assignment()).as("it gets the static member's partitions").hasSize(4);
  }

  @Test
  void aChangedSubscriptionRebalances() throws Exception {
    JoinResult[] two = twoMembers();
    CompletableFuture<JoinResult> restarted = group.join(join("", "s1", "t", "u"));
    assertThat(restarted).as("its subscription changed: a rebalance").isNotDone();
    assertThat(group.state()).isEqualTo(GroupState.REBALANCING);
    group.join(join(two[0].memberId(), "", "t"));
    assertThat(done(restarted).generation()).isEqualTo(3);
  }

  @Test
  void aRestartedStaticMemberWithTheSamePatternTakesItsPlaceWithoutARebalance() throws Exception {
    JoinResult dynamic = done(group.join(join("", "", "t")));
    CompletableFuture<JoinResult> staticJoin = group.join(byPattern("", "s1", "t|u"));
    done(group.join(join(dynamic.memberId(), "", "t")));
    JoinResult before = done(staticJoin);
    assertThat(before.topics()).containsExactly("t", "u");

    JoinResult after = done(group.join(byPattern("", "s1", "t|u")));

    assertThat(after.generation()).as("no rebalance").isEqualTo(before.generation());
    assertThat(after.assignment()).isEqualTo(before.assignment());
    assertThat(after.topics()).as("what its pattern matched").containsExactly("t", "u");
    group.tick(nowMs.get());
    assertThat(group.state()).as("the tick sees the same partitions").isEqualTo(GroupState.STABLE);
    assertThat(group.join(byPattern("", "s1", "u"))).as("another pattern: a rebalance").isNotDone();
  }

  static JoinRequest byPattern(String memberId, String instanceId, String pattern) {
    return new JoinRequest(memberId, "c", "127.0.0.1", List.of(), SESSION_MS, REBALANCE_MS, null, instanceId,
        pattern, false, List.of());
  }

  @Test
  void aRejoinMustKeepItsInstanceIdAndABadInstanceIdIsRefused() throws Exception {
    JoinResult[] two = twoMembers();
    assertThatThrownBy(() -> group.join(join(two[1].memberId(), "other", "t")))
        .isInstanceOf(BrokerException.class).hasMessageContaining("keeps its instance id")
        .extracting(e -> ((BrokerException) e).error()).isEqualTo(BrokerError.INVALID_REQUEST);
    assertThatThrownBy(() -> StaticMembers.checkInstanceId("has space"))
        .isInstanceOf(BrokerException.class).hasMessageContaining("invalid instance_id name 'has space'")
        .extracting(e -> ((BrokerException) e).error()).isEqualTo(BrokerError.INVALID_REQUEST);
    StaticMembers.checkInstanceId(""); // none: a dynamic member
  }

  private List<TopicPartition> ownedBy(String memberId) {
    return group.describe().members().stream().filter(m -> m.memberId().equals(memberId))
        .flatMap(m -> m.assignment().stream()).toList();
  }

  /** Everything here answers synchronously (a fake clock, ticks by hand): a future not done is a failure, not a wait. */
  private static <T> T done(CompletableFuture<T> f) {
    assertThat(f).as("answered").isDone();
    return f.join();
  }

  private static void assertFenced(CompletableFuture<?> call, String what) {
    assertThat(call).as(what).isCompletedExceptionally();
    assertThatThrownBy(call::get).isInstanceOf(ExecutionException.class).cause()
        .isInstanceOf(BrokerException.class).hasMessageContaining("replaced by a newer member with instance_id 's1'")
        .extracting(e -> ((BrokerException) e).error()).isEqualTo(BrokerError.MEMBER_REPLACED);
  }

  private static void assertReplaced(java.util.concurrent.Callable<?> call) {
    assertThatThrownBy(call::call).isInstanceOf(BrokerException.class)
        .extracting(e -> ((BrokerException) e).error()).isEqualTo(BrokerError.MEMBER_REPLACED);
  }
}
