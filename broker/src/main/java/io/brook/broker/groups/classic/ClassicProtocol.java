package io.brook.broker.groups.classic;

import io.brook.broker.groups.TopicPartition;
import java.util.List;

/**
 * One assignor a classic member offers in its JoinGroup, with its metadata (opaque to the broker).
 *
 * @param topics the topics of the metadata when the Kafka door could read it as a consumer
 *     subscription (protocol type "consumer"), else empty: describe and OffsetDelete use them
 * @param owned the partitions the subscription says the member owns (consumer protocol v1+), else
 *     empty: a classic member of a KIP-848 group gives up what it no longer lists
 */
public record ClassicProtocol(String name, byte[] metadata, List<String> topics, List<TopicPartition> owned) {
  public ClassicProtocol {
    topics = List.copyOf(topics);
    owned = List.copyOf(owned);
  }

  public ClassicProtocol(String name, byte[] metadata, List<String> topics) {
    this(name, metadata, topics, List.of());
  }
}
