package io.brook.broker.kafka.apis;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.Settlement;
import org.apache.kafka.common.protocol.Errors;

/**
 * Refusals of the share-group APIs as Kafka's coordinator words them: a group that is not a share
 * group, or is not there, is GROUP_ID_NOT_FOUND; an acknowledgement that
 * cannot apply (the record is not acquired by this member any more) INVALID_RECORD_STATE.
 */
final class ShareErrors {
  private ShareErrors() {}

  static KafkaErrors.Failure of(RuntimeException e) {
    if (e instanceof BrokerException b
        && (b.error() == BrokerError.INCONSISTENT_GROUP_MODE || b.error() == BrokerError.UNKNOWN_GROUP)) {
      return new KafkaErrors.Failure(Errors.GROUP_ID_NOT_FOUND, b.getMessage());
    }
    return GroupErrors.of(e).invalidRequestAs(Errors.INVALID_REQUEST);
  }

  /** An acknowledgement that did not apply. */
  static Errors of(Settlement.Failure f) {
    return f.error() == BrokerError.INVALID_REQUEST ? Errors.INVALID_REQUEST : Errors.INVALID_RECORD_STATE;
  }
}
