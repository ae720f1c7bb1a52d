package io.brook.broker.groups;

import java.util.UUID;

/**
 * A topic Kafka clients see that Brook keeps no records in. The one there is, {@link #CONSUMER_OFFSETS},
 * is Kafka's {@code __consumer_offsets}: the Kafka door lists it (internal, one partition, empty: committed
 * offsets live in the group journals), and the KIP-848 engine counts it among the topics, so a regex that
 * matches it is assigned its partition, as Kafka assigns it (Kafka's regexes see internal topics too).
 */
public record InternalTopic(String name, UUID id, int partitionCount) {
  /** A fixed id ("__consumer_offse" in ASCII): the topic never changes. */
  public static final InternalTopic CONSUMER_OFFSETS = new InternalTopic("__consumer_offsets",
      new UUID(0x5f5f636f6e73756dL, 0x65725f6f66667365L), 1);
}
