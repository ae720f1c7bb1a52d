package io.brook.broker.errors;

/**
 * Why a request (or one partition of it) failed: the broker's side of the error catalog, one constant
 * per ErrorCode of errors.proto. An adapter maps each to its wire code; the code's options in
 * errors.proto give the rest (the gRPC status, whether it is retriable).
 */
public enum BrokerError {
  UNKNOWN_TOPIC,
  UNKNOWN_PARTITION,
  TOPIC_EXISTS,
  OFFSET_OUT_OF_RANGE,
  RECORD_TOO_LARGE,
  BATCH_TOO_LARGE,
  INVALID_RECORD,
  INVALID_REQUEST,
  NOT_ENOUGH_DISK,
  LIMIT_EXCEEDED,
  STORAGE_ERROR,
  OUT_OF_ORDER_SEQUENCE,
  PRODUCER_FENCED,
  UNKNOWN_PRODUCER_ID,
  UNKNOWN_GROUP,
  GROUP_EXISTS,
  UNKNOWN_MEMBER_ID,
  ILLEGAL_GENERATION,
  GROUP_NOT_EMPTY,
  INCONSISTENT_GROUP_MODE,
  NOT_LEASED,
  LEASE_EXPIRED,
  ALREADY_SETTLED,
  MEMBER_REPLACED,
  NOT_OWNER
}
