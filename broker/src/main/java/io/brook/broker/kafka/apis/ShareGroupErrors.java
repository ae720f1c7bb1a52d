package io.brook.broker.kafka.apis;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.kafka.apis.KafkaErrors.Failure;
import org.apache.kafka.common.protocol.Errors;

/**
 * A refused share-group call as Kafka 4.3.1's coordinator answers it (D67): an unknown group and a
 * group that is not a share group (a Brook offset-mode group) are both GROUP_ID_NOT_FOUND, with
 * Kafka's messages; a group with a connected member NON_EMPTY_GROUP; the rest as {@link GroupErrors}.
 */
final class ShareGroupErrors {
  private ShareGroupErrors() {}

  static Failure of(String group, RuntimeException e) {
    if (e instanceof BrokerException b && b.error() == BrokerError.UNKNOWN_GROUP) {
      return new Failure(Errors.GROUP_ID_NOT_FOUND, "Group " + group + " not found.");
    }
    if (e instanceof BrokerException b && b.error() == BrokerError.INCONSISTENT_GROUP_MODE) {
      return new Failure(Errors.GROUP_ID_NOT_FOUND, "Group " + group + " is not a share group.");
    }
    return GroupErrors.of(e).invalidRequestAs(Errors.INVALID_GROUP_ID);
  }

  /** The empty group id, refused before any lookup. */
  static Failure emptyId() {
    return new Failure(Errors.INVALID_GROUP_ID, "the group id is empty");
  }

  /** Kafka's bit field of what the caller may do with the group: read (consume), describe, delete (admin). */
  static int operations(boolean consume, boolean admin) {
    int ops = 1 << org.apache.kafka.common.acl.AclOperation.DESCRIBE.code();
    if (consume) {
      ops |= 1 << org.apache.kafka.common.acl.AclOperation.READ.code();
    }
    if (admin) {
      ops |= 1 << org.apache.kafka.common.acl.AclOperation.DELETE.code();
    }
    return ops;
  }
}
