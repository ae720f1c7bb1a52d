package io.brook.broker.groups;

/** Where a group is in its life: no members, waiting for members to rejoin, or consuming. */
public enum GroupState {
  EMPTY,
  REBALANCING,
  STABLE
}
