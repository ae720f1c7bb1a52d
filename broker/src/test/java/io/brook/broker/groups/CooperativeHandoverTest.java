package io.brook.broker.groups;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CooperativeHandoverTest {
  static TopicPartition tp(int p) {
    return new TopicPartition("t", p);
  }

  @Test
  void aPartitionAnotherMemberStillOwnsIsWithheldFromItsNewOwnerAndDroppedFromTheOld() {
    Map<String, List<TopicPartition>> target = Map.of("a", List.of(tp(0), tp(1)), "b", List.of(tp(2)), "c", List.of(tp(3)));
    Map<String, Set<TopicPartition>> owned = Map.of("a", Set.of(tp(0), tp(1)), "b", Set.of(tp(2), tp(3)), "c", Set.of());

    CooperativeHandover.Plan plan = CooperativeHandover.plan(target, owned);

    assertThat(plan.answers()).containsEntry("a", List.of(tp(0), tp(1))).containsEntry("b", List.of(tp(2)))
        .containsEntry("c", List.of());
    assertThat(plan.releasing()).containsEntry("b", Set.of(tp(3))).containsEntry("a", Set.of()).containsEntry("c", Set.of());
    assertThat(plan.handoverPending()).isTrue();
  }

  @Test
  void nothingIsWithheldWhenNoOneOwnsAnything() {
    Map<String, List<TopicPartition>> target = Map.of("a", List.of(tp(0), tp(1)), "b", List.of(tp(2), tp(3)));

    CooperativeHandover.Plan plan = CooperativeHandover.plan(target, Map.of("a", Set.of(), "b", Set.of()));

    assertThat(plan.answers()).isEqualTo(target);
    assertThat(plan.handoverPending()).isFalse();
  }

  @Test
  void anEagerMemberOwnsNothingAndACooperativeOneOnlyWhatItWasAssigned() {
    assertThat(CooperativeHandover.owned(false, List.of(tp(0)), List.of(tp(0)))).isEmpty();
    assertThat(CooperativeHandover.owned(true, List.of(tp(0), tp(1), tp(5)), List.of(tp(0), tp(1), tp(2))))
        .containsExactlyInAnyOrder(tp(0), tp(1));
  }

  @Test
  void aKeptPartitionKeepsItsGenerationAndAnOldCommitIsTakenOnlyForPartitionsHeldSinceThen() {
    Map<TopicPartition, Integer> since = CooperativeHandover.heldSince(Map.of(tp(0), 3, tp(1), 4), Set.of(tp(0), tp(1)),
        List.of(tp(0), tp(2)), Set.of(tp(1)), 6);

    assertThat(since).isEqualTo(Map.of(tp(0), 3, tp(1), 4, tp(2), 6));
    assertThat(CooperativeHandover.mayCommitAt(5, since, List.of(tp(0), tp(1)))).isTrue();
    assertThat(CooperativeHandover.mayCommitAt(5, since, List.of(tp(0), tp(2)))).as("tp 2 is new at 6").isFalse();
    assertThat(CooperativeHandover.mayCommitAt(3, since, List.of(tp(1)))).as("tp 1 is held since 4").isFalse();
    assertThat(CooperativeHandover.mayCommitAt(5, since, List.of(tp(7)))).isFalse();
  }
}
