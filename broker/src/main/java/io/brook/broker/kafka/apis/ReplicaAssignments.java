package io.brook.broker.kafka.apis;

import io.brook.broker.kafka.apis.KafkaErrors.Failure;
import java.util.List;
import org.apache.kafka.common.protocol.Errors;

/** Replica assignments a client may give: on one node, each partition's replicas are exactly node 0. */
final class ReplicaAssignments {
  private ReplicaAssignments() {}

  /** @param expected the partition index this assignment must be for (assignments come in order) */
  static void check(int partition, int expected, List<Integer> brokerIds) {
    if (partition != expected) {
      throw new Refused(new Failure(Errors.INVALID_REPLICA_ASSIGNMENT,
          "replica assignments must be for partitions " + expected + ", " + (expected + 1) + ", ... in order, got "
              + partition));
    }
    if (!brokerIds.equals(List.of(0))) {
      throw new Refused(new Failure(Errors.INVALID_REPLICA_ASSIGNMENT,
          "Brook is a single node (id 0): each partition's replicas must be [0], got " + brokerIds
              + " for partition " + partition));
    }
  }
}
