package io.brook.broker.groups.classic;

import java.util.List;

/**
 * One assignor a classic member offers in its JoinGroup, with its metadata (opaque to the broker).
 *
 * @param topics the topics of the metadata when the Kafka door could read it as a consumer
 *     subscription (protocol type "consumer"), else empty: describe and OffsetDelete use them
 */
public record ClassicProtocol(String name, byte[] metadata, List<String> topics) {
  public ClassicProtocol {
    topics = List.copyOf(topics);
  }
}
