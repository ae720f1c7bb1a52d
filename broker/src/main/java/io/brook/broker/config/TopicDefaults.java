package io.brook.broker.config;

import io.brook.broker.topics.TopicConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The topic config of topics created without overrides, from the broker's {@code default.*} keys. */
public final class TopicDefaults {
  private static final Logger log = LoggerFactory.getLogger(TopicDefaults.class);

  private TopicDefaults() {}

  /**
   * The defaults; logs one warning when {@code default.max.message.bytes} is set and
   * {@code default.max.record.bytes} is not: until issue 25 the first was the per-record limit, so a
   * configuration written then means the second (D46).
   */
  public static TopicConfig of(BrokerConfig config) {
    if (!config.source(BrokerKeys.DEFAULT_MAX_MESSAGE_BYTES).equals("default")
        && config.source(BrokerKeys.DEFAULT_MAX_RECORD_BYTES).equals("default")) {
      log.warn("{}={} ({}) now has Kafka's meaning, the largest batch produced over Kafka; the per-record limit "
          + "it set before issue 25 is {} (still {}): set that key if you meant the record limit",
          BrokerKeys.DEFAULT_MAX_MESSAGE_BYTES.name(), config.get(BrokerKeys.DEFAULT_MAX_MESSAGE_BYTES),
          config.source(BrokerKeys.DEFAULT_MAX_MESSAGE_BYTES), BrokerKeys.DEFAULT_MAX_RECORD_BYTES.name(),
          config.get(BrokerKeys.DEFAULT_MAX_RECORD_BYTES));
    }
    return TopicConfig.defaults(config.get(BrokerKeys.DEFAULT_RETENTION_MS),
        config.get(BrokerKeys.DEFAULT_RETENTION_BYTES), config.get(BrokerKeys.DEFAULT_SEGMENT_ROLL),
        config.get(BrokerKeys.DEFAULT_MAX_RECORD_BYTES), config.get(BrokerKeys.DEFAULT_MAX_MESSAGE_BYTES));
  }
}
