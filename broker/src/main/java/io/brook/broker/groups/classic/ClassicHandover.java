package io.brook.broker.groups.classic;

import io.brook.broker.groups.TopicPartition;
import java.util.List;

/**
 * A classic member as it passes between a classic group and a KIP-848 group (Kafka's online upgrade
 * and downgrade, group.consumer.migration.policy): what it joined with and what it owns now.
 *
 * @param topics its subscription (of the protocol the group chose)
 * @param assigned the partitions it consumes now
 */
public record ClassicHandover(String memberId, String instanceId, String owner, String clientId, String clientHost,
    int sessionTimeoutMs, int rebalanceTimeoutMs, List<ClassicProtocol> protocols, List<String> topics,
    List<TopicPartition> assigned) {
  public ClassicHandover {
    protocols = List.copyOf(protocols);
    topics = List.copyOf(topics);
    assigned = List.copyOf(assigned);
  }
}
