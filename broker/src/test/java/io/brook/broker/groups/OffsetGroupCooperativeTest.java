package io.brook.broker.groups;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** An offset group's cooperative rebalance (D64): revoke before reassign, through the group's own calls. */
class OffsetGroupCooperativeTest extends OffsetGroupTestBase {
  static final long SESSION_MS = 30_000;


  @Override
  Map<String, Integer> topicsToCreate() {
    return Map.of("t", 4);
  }

  CompletableFuture<JoinResult> join(String memberId, boolean cooperative, List<TopicPartition> owned) {
    return group.join(new JoinRequest(memberId, "c", "127.0.0.1", List.of("t"), SESSION_MS, SESSION_MS, null, "", "",
        cooperative, owned));
  }

  /** Two cooperative members hold the 4 partitions (2 each), stable. */
  List<JoinResult> twoCooperativeMembers() throws Exception {
    JoinResult a = join("", true, List.of()).get();
    CompletableFuture<JoinResult> b = join("", true, List.of());
    a = join(a.memberId(), true, a.assignment()).get(); // a rejoins for b: it keeps what stays
    JoinResult bAnswer = b.get();
    // a gave two partitions up in that generation; the group rebalances again to hand them to b
    if (group.state() == GroupState.REBALANCING) {
      CompletableFuture<JoinResult> a2 = join(a.memberId(), true, a.assignment());
      bAnswer = join(bAnswer.memberId(), true, bAnswer.assignment()).get();
      a = a2.get();
    }
    assertThat(group.state()).isEqualTo(GroupState.STABLE);
    assertThat(a.assignment()).hasSize(2);
    assertThat(bAnswer.assignment()).hasSize(2);
    return List.of(a, bAnswer);
  }

  @Test
  void aMovedPartitionIsWithheldUntilItsOldOwnerRejoinsWithoutIt() throws Exception {
    List<JoinResult> ab = twoCooperativeMembers();
    JoinResult a = ab.get(0);
    JoinResult b = ab.get(1);

    CompletableFuture<JoinResult> c = join("", true, List.of());
    assertThat(group.heartbeat(a.memberId(), a.generation(), 0, null)).isCompletedWithValue(true);
    CompletableFuture<JoinResult> a1 = join(a.memberId(), true, a.assignment());
    CompletableFuture<JoinResult> b1 = join(b.memberId(), true, b.assignment());
    JoinResult c1 = c.get();
    JoinResult a1r = a1.get();
    JoinResult b1r = b1.get();

    assertThat(c1.assignment()).as("whatever c is meant to get is still a's or b's: withheld").isEmpty();
    List<TopicPartition> kept = new ArrayList<>(a1r.assignment());
    kept.addAll(b1r.assignment());
    assertThat(kept).as("the old owners' answers drop the moved partition, keep the rest").hasSize(3);
    assertThat(a.assignment()).containsAll(a1r.assignment());
    assertThat(b.assignment()).containsAll(b1r.assignment());
    assertThat(group.state()).as("the next rebalance starts at once").isEqualTo(GroupState.REBALANCING);
    assertThat(group.heartbeat(a.memberId(), a1r.generation(), 60_000, null)).isCompletedWithValue(true);
    TopicPartition moving = movedOf(a, a1r, b, b1r);
    String holder = a.assignment().contains(moving) ? a.memberId() : b.memberId();
    assertThat(group.describe().partitions()).filteredOn(p -> p.tp().equals(moving))
        .as("the moving partition is still its old owner's").singleElement()
        .satisfies(p -> assertThat(p.owner()).isEqualTo(holder));

    // While the handover runs, a commit of a kept partition made with the generation before it is taken...
    TopicPartition aKept = a1r.assignment().get(0);
    assertThat(group.commit(a.memberId(), a.generation(), List.of(new CommitRequest(aKept, 0, "")), null))
        .singleElement().satisfies(o -> assertThat(o.error()).as("stored").isNull());
    // ...but not one of a partition a member did not hold then
    TopicPartition notA = b1r.assignment().get(0);
    assertThatThrownBy(() -> group.commit(a.memberId(), a.generation(), List.of(new CommitRequest(notA, 5, "")), null))
        .isInstanceOfSatisfying(BrokerException.class, e -> assertThat(e.error()).isEqualTo(BrokerError.ILLEGAL_GENERATION));

    CompletableFuture<JoinResult> a2 = join(a.memberId(), true, a1r.assignment());
    CompletableFuture<JoinResult> b2 = join(b.memberId(), true, b1r.assignment());
    JoinResult c2 = join(c1.memberId(), true, c1.assignment()).get();
    assertThat(c2.assignment()).as("handed over once its old owner let it go").hasSize(1);
    assertThat(a2.get().assignment()).isEqualTo(a1r.assignment());
    assertThat(b2.get().assignment()).isEqualTo(b1r.assignment());
    assertThat(group.state()).isEqualTo(GroupState.STABLE);
    Set<TopicPartition> all = new HashSet<>(c2.assignment());
    all.addAll(a2.get().assignment());
    all.addAll(b2.get().assignment());
    assertThat(all).hasSize(4);
  }

  /** The partition a or b gave up in its last answer. */
  static TopicPartition movedOf(JoinResult a, JoinResult a1, JoinResult b, JoinResult b1) {
    List<TopicPartition> gone = new ArrayList<>(a.assignment());
    gone.removeAll(a1.assignment());
    List<TopicPartition> goneB = new ArrayList<>(b.assignment());
    goneB.removeAll(b1.assignment());
    gone.addAll(goneB);
    assertThat(gone).hasSize(1);
    return gone.get(0);
  }

  @Test
  void anEagerMemberOwnsNothingWhenItRejoinsSoNothingIsWithheldForIt() throws Exception {
    JoinResult a = join("", false, List.of()).get();
    assertThat(a.assignment()).hasSize(4);
    CompletableFuture<JoinResult> b = join("", true, List.of());
    JoinResult a1 = join(a.memberId(), false, a.assignment()).get(); // owned is ignored: a is eager
    JoinResult b1 = b.get();
    assertThat(a1.assignment()).hasSize(2);
    assertThat(b1.assignment()).hasSize(2);
    assertThat(group.state()).isEqualTo(GroupState.STABLE);
  }
}
