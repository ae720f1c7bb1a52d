package io.brook.broker.groups;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.errors.Ownership;
import io.brook.broker.topics.TopicName;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Static membership of Brook's own offset-mode groups (Kafka's KIP-345, as its classic coordinator
 * keeps it): a member that joins with an instance id takes the place of the group's member with that
 * id, under a new member id; the older member is fenced (MEMBER_REPLACED) and its partitions pass to
 * the newer one. The gRPC calls after JoinGroup name only the member id, so each static member keeps
 * the ids it replaced, to tell a fenced caller from one the group never knew.
 */
public final class StaticMembers {
  /** Replaced ids remembered per instance: enough for restarts in a row, bounded against a restart loop. */
  static final int MAX_REPLACED_IDS = 8;

  private StaticMembers() {}

  /**
   * Checks a JoinGroup's instance_id: empty (a dynamic member) or a name by the group-name rule.
   *
   * @throws BrokerException INVALID_REQUEST saying what was wrong
   */
  public static void checkInstanceId(String instanceId) {
    if (!instanceId.isEmpty()) {
      TopicName.check("instance_id", instanceId);
    }
  }

  /** The member holding this instance id, or null. */
  static OffsetMember holder(Collection<OffsetMember> members, String instanceId) {
    return members.stream().filter(m -> instanceId.equals(m.instanceId)).findFirst().orElse(null);
  }

  /** The member that took the place of this member id, or null when the id was never replaced. */
  static OffsetMember replacerOf(Collection<OffsetMember> members, String memberId) {
    return members.stream().filter(m -> m.replacedIds.contains(memberId)).findFirst().orElse(null);
  }

  /**
   * A new member in {@code old}'s place: the same instance, partitions and owner, a new id; old's
   * pending join and held heartbeat are answered MEMBER_REPLACED, and its id stays fenced.
   *
   * @throws BrokerException NOT_OWNER when another principal made {@code old}
   */
  static OffsetMember replace(OffsetMember old, JoinRequest r, String group) {
    Ownership.check(old.owner, r.owner(), "static member '" + old.instanceId + "' of group '" + group + "'");
    OffsetMember next = new OffsetMember(r.instanceId() + "-" + UUID.randomUUID(), old.owner);
    next.instanceId = old.instanceId;
    next.assignment = old.assignment;
    next.topics = old.topics;
    next.topicPattern = old.topicPattern; // its topics are what this matched: a restart with it changes nothing
    next.answered = true; // a static member is found by its instance id: it need not know its id to come back
    List<String> replaced = new ArrayList<>(old.replacedIds);
    replaced.add(old.id);
    next.replacedIds = List.copyOf(replaced.subList(Math.max(0, replaced.size() - MAX_REPLACED_IDS), replaced.size()));
    BrokerException fenced = replaced(group, old.id, next);
    if (old.pendingJoin != null) {
      old.pendingJoin.completeExceptionally(fenced);
      old.pendingJoin = null;
    }
    if (old.heldHeartbeat != null) {
      old.heldHeartbeat.completeExceptionally(fenced);
      old.heldHeartbeat = null;
    }
    return next;
  }

  /**
   * A rejoin under a member id keeps the instance id the member joined with (none stays none).
   *
   * @throws BrokerException INVALID_REQUEST when the join names another
   */
  static void checkSameInstance(OffsetMember m, JoinRequest r, String group) {
    String had = m.instanceId == null ? "" : m.instanceId;
    if (!had.equals(r.instanceId())) {
      throw new BrokerException(BrokerError.INVALID_REQUEST, "member '" + m.id + "' of group '" + group
          + "' joined with instance_id '" + had + "', not '" + r.instanceId()
          + "': a member keeps its instance id; join with an empty member_id to take another");
    }
  }

  /**
   * Whether a static member's join is answered at once, without a rebalance: the group is stable and
   * the subscription is the one it holds its partitions by (as Kafka answers a restarted static member).
   */
  static boolean answerAtOnce(GroupState state, OffsetMember m, JoinRequest r) {
    if (state != GroupState.STABLE || m.topics == null) {
      return false;
    }
    if (!r.topicPattern().isEmpty()) { // its topics are what the pattern matched: compare the pattern
      return m.topicPattern != null && m.topicPattern.pattern().equals(r.topicPattern());
    }
    return m.topicPattern == null && m.topics.equals(List.copyOf(new TreeSet<>(r.topics())));
  }

  /** What a fenced member's calls are answered. */
  static BrokerException replaced(String group, String memberId, OffsetMember by) {
    return new BrokerException(BrokerError.MEMBER_REPLACED, "member '" + memberId + "' of group '" + group
        + "' was replaced by a newer member with instance_id '" + by.instanceId + "' (" + by.id
        + "): stop this consumer, or give each one its own instance id");
  }
}
