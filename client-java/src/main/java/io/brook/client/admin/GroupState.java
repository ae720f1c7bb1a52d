package io.brook.client.admin;

/** Where a group stands. */
public enum GroupState {
  /** No members. */
  EMPTY,
  /** Offset mode: waiting for members to rejoin. */
  REBALANCING,
  /** Members hold their assignment (offset mode) or receive (ack mode). */
  STABLE,
  /** A state this client does not know. */
  UNKNOWN
}
