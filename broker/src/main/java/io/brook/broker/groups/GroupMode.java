package io.brook.broker.groups;

/** Offset mode: Kafka's consumer groups. Ack mode: per-record leases, acks and dead letters. */
public enum GroupMode {
  OFFSET,
  ACK
}
