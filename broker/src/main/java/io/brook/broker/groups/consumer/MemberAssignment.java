package io.brook.broker.groups.consumer;

import io.brook.broker.groups.TopicPartition;
import java.util.Set;

/**
 * A member's place in reconciliation.
 *
 * @param epoch its member epoch
 * @param previousEpoch its epoch before the last change (a heartbeat whose answer was lost carries it)
 * @param assigned what it may consume now: what it was last told, or will be by the next answer
 * @param revoking what it still owns and must give up before it gets anything new
 */
public record MemberAssignment(int epoch, int previousEpoch, MemberState state, Set<TopicPartition> assigned,
    Set<TopicPartition> revoking) {

  public MemberAssignment {
    assigned = Set.copyOf(assigned);
    revoking = Set.copyOf(revoking);
  }

  /** A member that just joined: nothing owned, epoch 0. */
  public static MemberAssignment joining() {
    return new MemberAssignment(0, 0, MemberState.STABLE, Set.of(), Set.of());
  }
}
