package io.brook.broker.groups;

/**
 * Why a Kafka-protocol member's call is refused. The names are Kafka's error names, so the Kafka
 * door maps a fault with {@code Errors.valueOf(fault.name())}; the gRPC door never sees them (its
 * members are BROOK members, whose refusals stay {@link io.brook.broker.errors.BrokerError}s).
 */
public enum MemberFault {
  MEMBER_ID_REQUIRED,
  REBALANCE_IN_PROGRESS,
  ILLEGAL_GENERATION,
  UNKNOWN_MEMBER_ID,
  FENCED_INSTANCE_ID,
  UNRELEASED_INSTANCE_ID,
  FENCED_MEMBER_EPOCH,
  STALE_MEMBER_EPOCH,
  INCONSISTENT_GROUP_PROTOCOL,
  GROUP_MAX_SIZE_REACHED,
  UNSUPPORTED_ASSIGNOR,
  INVALID_SESSION_TIMEOUT,
  INVALID_REGULAR_EXPRESSION,
  UNSUPPORTED_VERSION,
  COORDINATOR_NOT_AVAILABLE,
  GROUP_ID_NOT_FOUND,
  NON_EMPTY_GROUP,
  GROUP_SUBSCRIBED_TO_TOPIC,
  INVALID_GROUP_ID,
  GROUP_AUTHORIZATION_FAILED,
  SHARE_SESSION_NOT_FOUND,
  INVALID_SHARE_SESSION_EPOCH,
  INVALID_REQUEST
}
