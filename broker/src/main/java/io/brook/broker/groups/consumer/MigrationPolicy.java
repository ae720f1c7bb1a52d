package io.brook.broker.groups.consumer;

/**
 * Kafka's group.consumer.migration.policy: whether a classic group with members becomes a KIP-848
 * group when a KIP-848 consumer joins it (upgrade), and whether a KIP-848 group whose last KIP-848
 * member left becomes classic again (downgrade). Classic members join a KIP-848 group with members
 * unless it is DISABLED, as in Kafka 4.3.
 */
public enum MigrationPolicy {
  DISABLED, UPGRADE, DOWNGRADE, BIDIRECTIONAL;

  public boolean upgrades() {
    return this == UPGRADE || this == BIDIRECTIONAL;
  }

  public boolean downgrades() {
    return this == DOWNGRADE || this == BIDIRECTIONAL;
  }
}
