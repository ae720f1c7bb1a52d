package io.brook.broker.groups;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Where static members, cooperative members and patterns meet in one offset-mode group: what a static
 * member away still holds is not handed out before it revoked it, its crossing commits survive a
 * restart, a bogus owned list costs nothing, and a backtracking pattern is refused at its join.
 */
class OffsetGroupInteractionTest extends OffsetGroupTestBase {
  static final long SESSION_MS = 6_000;
  static final long REBALANCE_MS = 3_000;


  @Override
  Map<String, Integer> topicsToCreate() {
    return Map.of("t", 4);
  }

  static JoinRequest coop(String memberId, String instanceId, List<TopicPartition> owned) {
    return new JoinRequest(memberId, "c", "127.0.0.1", List.of("t"), SESSION_MS, REBALANCE_MS, null, instanceId, "",
        true, owned);
  }

  static <T> T done(CompletableFuture<T> f) {
    assertThat(f).as("answered").isDone();
    return f.join();
  }

  /** D64's crossing commit survives a static restart: the restarted member holds its partitions since its rejoin. */
  @Test
  void aCrossingCommitOfAKeptPartitionIsTakenAfterAStaticRestart() {
    JoinResult a = done(group.join(coop("", "s1", List.of())));            // gen 1: s1 holds t-0..t-3
    JoinResult restarted = done(group.join(coop("", "s1", List.of())));    // restart: answered at once, gen 1
    assertThat(restarted.generation()).isEqualTo(1);
    CompletableFuture<JoinResult> b = group.join(coop("", "", List.of())); // a rebalance starts
    // s1's rejoin runs in the background; it keeps fetching what it owns
    JoinResult a2 = done(group.join(coop(restarted.memberId(), "s1", restarted.assignment())));
    done(b);
    assertThat(a2.generation()).isEqualTo(2);
    TopicPartition kept = a2.assignment().get(0);
    // its commit made with generation 1 crosses the answer: held throughout, so taken (as without the restart)
    assertThat(group.commit(restarted.memberId(), 1, List.of(new CommitRequest(kept, 0, "")), null))
        .singleElement().satisfies(o -> assertThat(o.error()).as("stored").isNull());
  }

  @Test
  void aCrossingCommitIsTakenWithoutARestart() {
    JoinResult a = done(group.join(coop("", "s1", List.of())));
    CompletableFuture<JoinResult> b = group.join(coop("", "", List.of()));
    JoinResult a2 = done(group.join(coop(a.memberId(), "s1", a.assignment())));
    done(b);
    TopicPartition kept = a2.assignment().get(0);
    assertThat(group.commit(a.memberId(), 1, List.of(new CommitRequest(kept, 0, "")), null))
        .singleElement().satisfies(o -> assertThat(o.error()).as("stored").isNull());
  }

  /**
   * A cooperative static member away at a rebalance is given an answer it never receives; when it rejoins
   * reporting what it still holds, the partition that answer dropped is handed to another member at once.
   */
  @Test
  void aPartitionAnAwayCooperativeStaticMemberStillHoldsIsNotHandedOutBeforeItRevokesIt() {
    JoinResult b1 = done(group.join(coop("", "", List.of())));           // gen 1: b holds 4
    CompletableFuture<JoinResult> af = group.join(coop("", "s1", List.of()));
    JoinResult b2 = done(group.join(coop(b1.memberId(), "", b1.assignment()))); // gen 2: b keeps 2, 2 withheld
    JoinResult a = done(af);
    CompletableFuture<JoinResult> b3f = group.join(coop(b2.memberId(), "", b2.assignment()));
    JoinResult a3 = done(group.join(coop(a.memberId(), "s1", a.assignment())));
    JoinResult b3 = done(b3f);                                           // gen 3: 2 and 2, stable
    assertThat(group.state()).isEqualTo(GroupState.STABLE);
    assertThat(a3.assignment()).hasSize(2);

    CompletableFuture<JoinResult> c = group.join(coop("", "", List.of())); // s1 is slow: it does not rejoin
    CompletableFuture<JoinResult> b4f = group.join(coop(b3.memberId(), "", b3.assignment()));
    nowMs.addAndGet(REBALANCE_MS);
    group.tick(nowMs.get());                                             // gen 4 without s1 (kept: static)
    done(b4f);
    JoinResult c4 = done(c);
    assertThat(c4.assignment()).as("s1 (static, cooperative, away) still holds %s and was never told to revoke",
        a3.assignment()).doesNotContainAnyElementsOf(a3.assignment());
  }

  /** A hostile topic_pattern (14 characters, compiles) would hold the group's monitor and the tick's thread for hours. */
  @Test
  void aBacktrackingPatternIsRefusedAtItsJoin() {
    topics.create("orders-eu-west-1-payments-v2-x-y", 1, Map.of()); // 32 characters
    assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThatThrownBy(() -> group.join(new JoinRequest("",
        "c", "127.0.0.1", List.of(), SESSION_MS, REBALANCE_MS, null, "", "(.*){1,1000}Q", false, List.of())))
        .isInstanceOfSatisfying(BrokerException.class, e -> {
          assertThat(e.error()).isEqualTo(BrokerError.INVALID_REQUEST);
          assertThat(e.getMessage()).contains("gives up matching topic 'orders-eu-west-1-payments-v2-x-y'");
        }));
    assertThat(group.memberCount()).isZero();
  }

  /** An owned list counts only within what its member was given: the rest (unknown topics, duplicates) is dropped. */
  @Test
  void aBogusOwnedListIsNotKept() {
    List<TopicPartition> bogus = new ArrayList<>();
    for (int p = 0; p < 50_000; p++) {
      bogus.add(new TopicPartition("t", p % 7));
      bogus.add(new TopicPartition("nope", p));
    }
    JoinResult a = done(group.join(coop("", "", bogus)));
    assertThat(a.assignment()).hasSize(4);
    CompletableFuture<JoinResult> b = group.join(coop("", "", bogus));
    JoinResult a2 = done(group.join(coop(a.memberId(), "", bogus)));
    JoinResult b2 = done(b);
    assertThat(a2.assignment()).as("a keeps what it was given, minus what moves").hasSize(2);
    assertThat(b2.assignment()).as("a still owns what moves to b (its report, within what it was given): withheld")
        .isEmpty();
    assertThat(group.state()).isEqualTo(GroupState.REBALANCING);
  }
}
