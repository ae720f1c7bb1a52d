package io.brook.broker.kafka.apis;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import org.apache.kafka.common.protocol.Errors;

/**
 * Brook's error catalog in Kafka's codes, in one place. Kafka's clients decide from the code alone
 * whether to retry, so each error gets the Kafka code whose retriability matches Brook's (errors.proto)
 * and whose name says the same thing; the message goes where the response has a field for it.
 */
public final class KafkaErrors {
  private KafkaErrors() {}

  public static Errors code(BrokerError e) {
    return switch (e) {
      case UNKNOWN_TOPIC, UNKNOWN_PARTITION -> Errors.UNKNOWN_TOPIC_OR_PARTITION;
      case TOPIC_EXISTS -> Errors.TOPIC_ALREADY_EXISTS;
      case OFFSET_OUT_OF_RANGE -> Errors.OFFSET_OUT_OF_RANGE;
      case RECORD_TOO_LARGE, BATCH_TOO_LARGE -> Errors.MESSAGE_TOO_LARGE;
      case INVALID_RECORD -> Errors.INVALID_RECORD;
      case INVALID_REQUEST -> Errors.INVALID_REQUEST;
      // Retriable in Brook and in Kafka: the disk may free up (retention, an operator), the client retries.
      case NOT_ENOUGH_DISK, STORAGE_ERROR -> Errors.KAFKA_STORAGE_ERROR;
      // Kafka's refusal by broker policy (CreateTopicPolicy): not retriable, as a broker limit is not.
      case LIMIT_EXCEEDED -> Errors.POLICY_VIOLATION;
      case OUT_OF_ORDER_SEQUENCE -> Errors.OUT_OF_ORDER_SEQUENCE_NUMBER;
      // Kafka's Produce answers a fenced epoch with INVALID_PRODUCER_EPOCH (PRODUCER_FENCED is for transactions).
      case PRODUCER_FENCED -> Errors.INVALID_PRODUCER_EPOCH;
      case UNKNOWN_PRODUCER_ID -> Errors.UNKNOWN_PRODUCER_ID;
      // Groups and ack mode come to the Kafka door in the next issue; these are the nearest codes until then.
      case UNKNOWN_GROUP -> Errors.GROUP_ID_NOT_FOUND;
      case GROUP_EXISTS -> Errors.INVALID_REQUEST;
      case UNKNOWN_MEMBER_ID -> Errors.UNKNOWN_MEMBER_ID;
      case ILLEGAL_GENERATION -> Errors.ILLEGAL_GENERATION;
      case GROUP_NOT_EMPTY -> Errors.NON_EMPTY_GROUP;
      case INCONSISTENT_GROUP_MODE -> Errors.INCONSISTENT_GROUP_PROTOCOL;
      case NOT_LEASED, LEASE_EXPIRED, ALREADY_SETTLED -> Errors.INVALID_REQUEST;
      case MEMBER_REPLACED -> Errors.FENCED_INSTANCE_ID;
      // Another principal's producer id or member: Kafka's authorization failure for idempotent writes.
      case NOT_OWNER -> Errors.CLUSTER_AUTHORIZATION_FAILED;
    };
  }

  /** A failure as a Kafka code and message; an unexpected exception is the broker's fault (UNKNOWN_SERVER_ERROR). */
  public static Failure of(RuntimeException e) {
    if (e instanceof BrokerException b) {
      return new Failure(code(b.error()), b.getMessage());
    }
    return new Failure(Errors.UNKNOWN_SERVER_ERROR, e.toString());
  }

  /** A Kafka error code with the message that says what was wrong. */
  public record Failure(Errors error, String message) {
    public short code() {
      return error.code();
    }

    /** The same failure under a more precise code where Brook's INVALID_REQUEST has one in this API. */
    public Failure invalidRequestAs(Errors precise) {
      return error == Errors.INVALID_REQUEST ? new Failure(precise, message) : this;
    }
  }
}
