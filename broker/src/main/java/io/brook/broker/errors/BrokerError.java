package io.brook.broker.errors;

/** Why a request (or one partition of it) failed. The api layer maps these to gRPC and to ErrorCode. */
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
  STORAGE_ERROR,
  OUT_OF_ORDER_SEQUENCE,
  PRODUCER_FENCED,
  UNKNOWN_PRODUCER_ID
}
