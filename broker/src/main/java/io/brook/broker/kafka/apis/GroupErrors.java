package io.brook.broker.kafka.apis;

import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.MemberFault;
import io.brook.broker.groups.MemberFaultException;
import io.brook.broker.kafka.apis.KafkaErrors.Failure;
import org.apache.kafka.common.protocol.Errors;

/**
 * A refused group call as the Kafka group APIs answer it. Engines refuse with Kafka's own error names
 * (MemberFault); Brook's errors map as {@link KafkaErrors} does, except where a group API's clients
 * would read the general code wrongly: a full disk is COORDINATOR_NOT_AVAILABLE (retriable, and in
 * every group API's error list, where KAFKA_STORAGE_ERROR is in none), another principal's member is
 * GROUP_AUTHORIZATION_FAILED (not CLUSTER_, which names the wrong resource and is fatal to a consumer).
 */
public final class GroupErrors {
  private GroupErrors() {}

  public static Failure of(RuntimeException e) {
    if (e instanceof MemberFaultException f) {
      return new Failure(of(f.fault()), f.getMessage());
    }
    if (e instanceof BrokerException b) {
      Errors code = switch (b.error()) {
        case NOT_ENOUGH_DISK, STORAGE_ERROR -> Errors.COORDINATOR_NOT_AVAILABLE;
        case NOT_OWNER -> Errors.GROUP_AUTHORIZATION_FAILED;
        default -> KafkaErrors.code(b.error());
      };
      return new Failure(code, b.getMessage());
    }
    return KafkaErrors.of(e);
  }

  /** A fault's Kafka error; NONE for null. The fault names are Kafka's error names. */
  public static Errors of(MemberFault fault) {
    return fault == null ? Errors.NONE : Errors.valueOf(fault.name());
  }

  /** The answer to a caller without the permission a group API needs on the group. */
  public static Failure notAuthorized(String group) {
    return new Failure(Errors.GROUP_AUTHORIZATION_FAILED, "not authorized for group '" + group + "'");
  }
}
