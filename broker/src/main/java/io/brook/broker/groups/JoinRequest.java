package io.brook.broker.groups;

import java.util.List;

/**
 * An offset-mode join, checked by the caller (the core's group service).
 *
 * @param memberId empty for a new member
 * @param topics the subscription by name; empty when {@code topicPattern} is set
 * @param owner the caller's principal (null with auth off)
 * @param instanceId a static member's instance id; empty for a dynamic member
 * @param topicPattern a regular expression over topic names instead of {@code topics}; empty for none
 * @param cooperative the member keeps its partitions while it rejoins (incremental rebalancing)
 * @param owned a cooperative member's partitions it still holds
 */
public record JoinRequest(String memberId, String clientId, String address, List<String> topics,
    long sessionTimeoutMs, long rebalanceTimeoutMs, String owner, String instanceId, String topicPattern,
    boolean cooperative, List<TopicPartition> owned) {

  /** A dynamic, eager member subscribed by topic names. */
  public JoinRequest(String memberId, String clientId, String address, List<String> topics, long sessionTimeoutMs,
      long rebalanceTimeoutMs, String owner) {
    this(memberId, clientId, address, topics, sessionTimeoutMs, rebalanceTimeoutMs, owner, "", "", false, List.of());
  }

  /** The same join with the broker's effective timeouts. */
  public JoinRequest withTimeouts(long sessionMs, long rebalanceMs) {
    return new JoinRequest(memberId, clientId, address, topics, sessionMs, rebalanceMs, owner, instanceId,
        topicPattern, cooperative, owned);
  }
}
