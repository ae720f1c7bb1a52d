package io.brook.broker.kafka.apis;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.Settlement;
import io.brook.broker.kafka.apis.KafkaErrors.Failure;
import org.apache.kafka.common.protocol.Errors;

/**
 * A refused share-group call as Kafka 4.3.1's coordinator answers it (D65, D67): an unknown group and
 * a group that is not a share group (a Brook offset-mode group) are both GROUP_ID_NOT_FOUND (the admin
 * calls with Kafka's messages, the consumer's calls with Brook's, which say more); a group with a
 * connected member NON_EMPTY_GROUP; an acknowledgement that cannot apply (the record is not acquired
 * by this member any more) INVALID_RECORD_STATE; the rest as {@link GroupErrors}.
 */
final class ShareGroupErrors {
  private ShareGroupErrors() {}

  /** An admin call's refusal, in Kafka's words. */
  static Failure of(String group, RuntimeException e) {
    if (e instanceof BrokerException b && b.error() == BrokerError.UNKNOWN_GROUP) {
      return new Failure(Errors.GROUP_ID_NOT_FOUND, "Group " + group + " not found.");
    }
    if (e instanceof BrokerException b && b.error() == BrokerError.INCONSISTENT_GROUP_MODE) {
      return new Failure(Errors.GROUP_ID_NOT_FOUND, "Group " + group + " is not a share group.");
    }
    return GroupErrors.of(e).invalidRequestAs(Errors.INVALID_GROUP_ID);
  }

  /** A share consumer's call (heartbeat, fetch, acknowledge) refused, with the broker's message. */
  static Failure of(RuntimeException e) {
    if (e instanceof BrokerException b
        && (b.error() == BrokerError.INCONSISTENT_GROUP_MODE || b.error() == BrokerError.UNKNOWN_GROUP)) {
      return new Failure(Errors.GROUP_ID_NOT_FOUND, b.getMessage());
    }
    return GroupErrors.of(e);
  }

  /** An acknowledgement that did not apply. */
  static Errors of(Settlement.Failure f) {
    return f.error() == BrokerError.INVALID_REQUEST ? Errors.INVALID_REQUEST : Errors.INVALID_RECORD_STATE;
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
