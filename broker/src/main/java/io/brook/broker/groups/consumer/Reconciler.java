package io.brook.broker.groups.consumer;

import io.brook.broker.groups.TopicPartition;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Moves one member towards its target assignment, KIP-848's incremental way: it first gives up what
 * is no longer its (its epoch stays until its heartbeat stops listing those partitions), then gets
 * the target epoch and the new partitions that nobody else still owns; the others come at a later
 * heartbeat, once their owner gave them up. So no partition is ever owned by two members.
 */
public final class Reconciler {
  private Reconciler() {}

  /**
   * @param targetEpoch the epoch of the group's target assignment
   * @param target the member's partitions in it
   * @param owned the partitions the member's heartbeat says it owns, or null when it did not say
   * @param heldByOther whether another member owns a partition (assigned or still revoking)
   */
  public static MemberAssignment next(MemberAssignment now, int targetEpoch, Set<TopicPartition> target,
      Set<TopicPartition> owned, Predicate<TopicPartition> heldByOther) {
    return switch (now.state()) {
      case STABLE -> now.epoch() == targetEpoch ? now : towards(now, targetEpoch, target, heldByOther);
      case UNREVOKED_PARTITIONS -> owned != null && owned.stream().noneMatch(now.revoking()::contains)
          ? towards(new MemberAssignment(now.epoch(), now.previousEpoch(), MemberState.STABLE, now.assigned(), Set.of()),
              targetEpoch, target, heldByOther)
          : now;
      case UNRELEASED_PARTITIONS -> towards(now, targetEpoch, target, heldByOther);
    };
  }

  /**
   * A classic member joined again, saying what it owns now (an eager consumer gave up everything
   * before it rejoined; a cooperative one lists what it kept): it gets the target epoch and what of
   * its target nobody else owns, or it must first give up what is no longer its.
   */
  public static MemberAssignment rejoin(MemberAssignment now, int targetEpoch, Set<TopicPartition> target,
      Set<TopicPartition> owned, Predicate<TopicPartition> heldByOther) {
    Set<TopicPartition> stillOwned = new HashSet<>(now.assigned());
    stillOwned.addAll(now.revoking());
    stillOwned.retainAll(owned);
    return towards(new MemberAssignment(now.epoch(), now.previousEpoch(), MemberState.STABLE, stillOwned, Set.of()),
        targetEpoch, target, heldByOther);
  }

  private static MemberAssignment towards(MemberAssignment now, int targetEpoch, Set<TopicPartition> target,
      Predicate<TopicPartition> heldByOther) {
    Set<TopicPartition> kept = new HashSet<>(now.assigned());
    kept.retainAll(target);
    Set<TopicPartition> revoke = new HashSet<>(now.assigned());
    revoke.removeAll(target);
    if (!revoke.isEmpty()) {
      return new MemberAssignment(now.epoch(), now.previousEpoch(), MemberState.UNREVOKED_PARTITIONS, kept, revoke);
    }
    boolean unreleased = false;
    for (TopicPartition tp : target) {
      if (!kept.contains(tp)) {
        if (heldByOther.test(tp)) {
          unreleased = true;
        } else {
          kept.add(tp);
        }
      }
    }
    int previous = now.epoch() == targetEpoch ? now.previousEpoch() : now.epoch();
    return new MemberAssignment(targetEpoch, previous,
        unreleased ? MemberState.UNRELEASED_PARTITIONS : MemberState.STABLE, kept, Set.of());
  }
}
