package io.brook.broker.groups.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.groups.TopicPartition;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ReconcilerTest {
  private static final TopicPartition T0 = new TopicPartition("t", 0);
  private static final TopicPartition T1 = new TopicPartition("t", 1);
  private static final TopicPartition T2 = new TopicPartition("t", 2);

  @Test
  void aJoiningMemberGetsItsFreeTargetAndTheTargetEpoch() {
    MemberAssignment next = Reconciler.next(MemberAssignment.joining(), 5, Set.of(T0, T1), null, tp -> false);
    assertThat(next.epoch()).isEqualTo(5);
    assertThat(next.state()).isEqualTo(MemberState.STABLE);
    assertThat(next.assigned()).containsExactlyInAnyOrder(T0, T1);
  }

  @Test
  void partitionsStillOwnedByAnotherMemberWaitAndComeOnceReleased() {
    MemberAssignment next = Reconciler.next(MemberAssignment.joining(), 5, Set.of(T0, T1), null, T1::equals);
    assertThat(next.epoch()).isEqualTo(5);
    assertThat(next.state()).isEqualTo(MemberState.UNRELEASED_PARTITIONS);
    assertThat(next.assigned()).containsExactly(T0);
    MemberAssignment still = Reconciler.next(next, 5, Set.of(T0, T1), Set.of(T0), T1::equals);
    assertThat(still.assigned()).containsExactly(T0);
    MemberAssignment released = Reconciler.next(next, 5, Set.of(T0, T1), Set.of(T0), tp -> false);
    assertThat(released.state()).isEqualTo(MemberState.STABLE);
    assertThat(released.assigned()).containsExactlyInAnyOrder(T0, T1);
  }

  @Test
  void aMemberGivesUpFirstKeepingItsEpochUntilItsHeartbeatNoLongerListsThem() {
    MemberAssignment stable = new MemberAssignment(3, 2, MemberState.STABLE, Set.of(T0, T1, T2), Set.of());
    MemberAssignment revoking = Reconciler.next(stable, 4, Set.of(T0, T2), Set.of(T0, T1, T2), tp -> false);
    assertThat(revoking.state()).isEqualTo(MemberState.UNREVOKED_PARTITIONS);
    assertThat(revoking.epoch()).isEqualTo(3);
    assertThat(revoking.assigned()).containsExactlyInAnyOrder(T0, T2);
    assertThat(revoking.revoking()).containsExactly(T1);
    // Its heartbeat still lists T1 (or says nothing): it waits.
    assertThat(Reconciler.next(revoking, 4, Set.of(T0, T2), Set.of(T0, T1, T2), tp -> false)).isEqualTo(revoking);
    assertThat(Reconciler.next(revoking, 4, Set.of(T0, T2), null, tp -> false)).isEqualTo(revoking);
    MemberAssignment done = Reconciler.next(revoking, 4, Set.of(T0, T2), Set.of(T0, T2), tp -> false);
    assertThat(done.state()).isEqualTo(MemberState.STABLE);
    assertThat(done.epoch()).isEqualTo(4);
    assertThat(done.previousEpoch()).isEqualTo(3);
    assertThat(done.revoking()).isEmpty();
  }

  @Test
  void aMemberAtTheTargetEpochIsLeftAlone() {
    MemberAssignment stable = new MemberAssignment(4, 3, MemberState.STABLE, Set.of(T0), Set.of());
    assertThat(Reconciler.next(stable, 4, Set.of(T0, T1), Set.of(T0), tp -> false)).isEqualTo(stable);
  }
}
