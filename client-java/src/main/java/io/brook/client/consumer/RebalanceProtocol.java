package io.brook.client.consumer;

/** How a group member gives up partitions in a rebalance (Kafka's ConsumerPartitionAssignor.RebalanceProtocol). */
public enum RebalanceProtocol {
  /**
   * Every rebalance revokes all of the member's partitions before it rejoins, and poll waits for the
   * rebalance to complete.
   */
  EAGER,
  /**
   * Incremental: the member keeps its partitions while it rejoins and poll keeps returning their
   * records; only the partitions that move to another member are revoked (committed first), then a
   * second rebalance, which the broker starts at once, hands them over. Members of both kinds may
   * share a group.
   */
  COOPERATIVE
}
