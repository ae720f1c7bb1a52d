package io.brook.broker.kafka.apis;

import java.util.UUID;
import org.apache.kafka.common.Uuid;

/**
 * Brook's topic ids as Kafka's: the same 128 bits. Every topic got a random UUID when it was created,
 * persisted in its topic.properties, so the id is stable across restarts and a topic deleted and
 * created again under the same name gets a new one, as in Kafka.
 */
final class TopicIds {
  private TopicIds() {}

  static Uuid toKafka(UUID id) {
    return new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits());
  }

  static UUID toBrook(Uuid id) {
    return new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits());
  }
}
