package io.brook.broker.groups;

/**
 * Which membership protocol an offset-mode group's members speak; orthogonal to {@link GroupMode}.
 * NONE: offsets only, no member ever joined (Kafka lists it as a classic group with protocol type "").
 * BROOK: gRPC members (D16, assignment on the broker). CLASSIC: Kafka JoinGroup/SyncGroup (the
 * client leader assigns). CONSUMER: Kafka KIP-848 ConsumerGroupHeartbeat (the broker assigns).
 */
public enum GroupProtocol {
  NONE, BROOK, CLASSIC, CONSUMER
}
