package io.brook.broker.groups.consumer;

/** Where a member is in reaching its target assignment (Kafka's names). */
public enum MemberState {
  /** It has its whole target at the target epoch. */
  STABLE,
  /** It must give up partitions first; its epoch advances once its heartbeat no longer lists them. */
  UNREVOKED_PARTITIONS,
  /** It is at the target epoch, but some of its target partitions are still owned by others. */
  UNRELEASED_PARTITIONS
}
