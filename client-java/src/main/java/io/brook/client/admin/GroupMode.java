package io.brook.client.admin;

/** How a group consumes. */
public enum GroupMode {
  /** Kafka-style: partitions assigned to members, offsets committed by members. */
  OFFSET,
  /** Queue semantics: records leased to any member and acked one by one. */
  ACK,
  /** A mode this client does not know. */
  UNKNOWN
}
