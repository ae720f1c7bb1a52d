package io.brook.broker.groups.consumer;

import java.util.List;
import java.util.function.Predicate;

/**
 * A ConsumerGroupHeartbeat as the engine sees it. Fields that are null did not change since the
 * member's last heartbeat (the client sends them only when they do, or all of them to join).
 *
 * @param memberEpoch 0 joins, -1 leaves, -2 leaves for a while (static member), else the epoch the member has
 * @param rebalanceTimeoutMs -1: unchanged
 * @param owned the partitions the member owns now, or null: unchanged
 * @param owner the caller's principal (null with auth off)
 * @param visibleTopics the topics the caller may see: a regex subscription matches only those
 */
public record ConsumerHeartbeat(String group, String memberId, int memberEpoch, String instanceId, String rackId,
    int rebalanceTimeoutMs, List<String> subscribedTopicNames, String subscribedTopicRegex, String serverAssignor,
    List<TopicPartitions> owned, String clientId, String clientHost, String owner, Predicate<String> visibleTopics) {

  /** A caller that may see every topic (auth off). */
  public ConsumerHeartbeat(String group, String memberId, int memberEpoch, String instanceId, String rackId,
      int rebalanceTimeoutMs, List<String> subscribedTopicNames, String subscribedTopicRegex, String serverAssignor,
      List<TopicPartitions> owned, String clientId, String clientHost, String owner) {
    this(group, memberId, memberEpoch, instanceId, rackId, rebalanceTimeoutMs, subscribedTopicNames,
        subscribedTopicRegex, serverAssignor, owned, clientId, clientHost, owner, t -> true);
  }

  /** Kafka's "full request": what a member sends to join, or after an error, with every field set. */
  public boolean full() {
    return rebalanceTimeoutMs != -1 && (subscribedTopicNames != null || subscribedTopicRegex != null) && owned != null;
  }
}
