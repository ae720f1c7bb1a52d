package io.brook.client.consumer;

import io.brook.client.errors.MemberReplacedException;

/**
 * What being a static member ({@code group.instance.id}) changes for the consumer: it never sends
 * LeaveGroup (close, unsubscribe and a missed poll deadline leave it in the group until its session
 * times out, so a restart takes its place again without a rebalance), and once a newer consumer with
 * the same instance id took its place it is fenced for good, as Kafka's FencedInstanceIdException is
 * fatal: every poll throws. Guarded by its {@link Membership}'s monitor.
 */
final class StaticMembership {
  private static final System.Logger LOG = System.getLogger(StaticMembership.class.getName());

  private final String groupId;
  private final String instanceId;
  private MemberReplacedException replaced;

  StaticMembership(ConsumerConfig config) {
    this.groupId = config.groupId();
    this.instanceId = config.groupInstanceId();
  }

  /** The instance id a JoinGroup names: "" for a dynamic member. */
  String instanceId() {
    return instanceId == null ? "" : instanceId;
  }

  /** Only a dynamic member leaves its group; a static one stays until its session times out (as Kafka's). */
  boolean leaves() {
    return instanceId == null;
  }

  /** The broker answered MEMBER_REPLACED: a newer consumer with this instance id took the member's place. */
  void replaced(MemberReplacedException e) {
    if (replaced == null) {
      replaced = e;
      LOG.log(System.Logger.Level.WARNING, "consumer of group {0} with group.instance.id {1} was fenced: {2}",
          groupId, instanceId(), e.getMessage());
    }
  }

  boolean isReplaced() {
    return replaced != null;
  }

  /** @throws MemberReplacedException when the member was fenced */
  void throwIfReplaced() {
    if (replaced != null) {
      throw new MemberReplacedException(replaced.reason(), replaced.getMessage() + " (group.instance.id "
          + instanceId() + "; close this consumer)", replaced);
    }
  }
}
