package io.brook.broker.kafka.apis;

import io.brook.broker.core.TopicInfo;
import io.brook.broker.kafka.apis.KafkaErrors.Failure;
import io.brook.broker.topics.TopicConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigSource;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigType;

/**
 * Brook's topic configs under Kafka's names. Every Brook key that Kafka also has carries Kafka's
 * name and meaning (retention.ms, retention.bytes, message.timestamp.type, and max.message.bytes: the
 * largest stored batch after compression, D46), so the names pass through as they are; Brook-only
 * keys (segment.roll, max.record.bytes: the per-record limit of gRPC batches) keep their own names. Two
 * Kafka keys are served with the one value Brook implements and accept only that value:
 * compression.type=producer (batches are stored as the producer compressed them) and
 * cleanup.policy=delete (retention deletes; there is no compaction).
 */
final class KafkaTopicConfigs {
  /** Kafka keys with the one value Brook implements. */
  static final Map<String, String> FIXED = Map.of("compression.type", "producer", "cleanup.policy", "delete");
  /** Keys that are set when a topic is created and never after. */
  private static final List<String> FIXED_AFTER_CREATION = List.of(TopicConfig.SEGMENT_ROLL);
  private static final Map<String, ConfigType> TYPES = Map.of(
      TopicConfig.RETENTION_MS, ConfigType.LONG,
      TopicConfig.RETENTION_BYTES, ConfigType.LONG,
      TopicConfig.MAX_MESSAGE_BYTES, ConfigType.INT,
      TopicConfig.MAX_RECORD_BYTES, ConfigType.INT,
      "cleanup.policy", ConfigType.LIST);

  private KafkaTopicConfigs() {}

  /**
   * The Brook keys to set for Kafka's {@code configs}: fixed keys with their one value are dropped
   * (they hold already), anything else Brook does not have is refused with INVALID_CONFIG.
   *
   * @throws Refused naming the first key that cannot be set
   */
  static Map<String, String> toBrook(Map<String, String> configs) {
    Map<String, String> brook = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : configs.entrySet()) {
      String key = e.getKey();
      String value = e.getValue();
      if (value == null) {
        throw new Refused(new Failure(Errors.INVALID_CONFIG, "topic config " + key + " needs a value"));
      }
      String fixed = FIXED.get(key);
      if (fixed != null) {
        if (!fixed.equalsIgnoreCase(value.trim())) {
          throw new Refused(new Failure(Errors.INVALID_CONFIG, key + "=" + value + " is not supported: Brook "
              + ("cleanup.policy".equals(key) ? "deletes by retention and does not compact"
                  : "stores batches as the producer compressed them") + " (" + key + "=" + fixed + " only)"));
        }
        continue;
      }
      if (!TopicConfig.KEYS.contains(key)) {
        throw new Refused(new Failure(Errors.INVALID_CONFIG, "unknown or unsupported topic config '" + key
            + "': Brook's topic configs are " + String.join(", ", allNames())));
      }
      brook.put(key, value);
    }
    return brook;
  }

  /** Kafka keys Brook cannot remove: fixed ones (no-op) are dropped, unknown ones refused. */
  static List<String> toBrookRemovals(List<String> keys) {
    List<String> brook = new ArrayList<>();
    for (String key : keys) {
      if (FIXED.containsKey(key)) {
        continue;
      }
      if (!TopicConfig.KEYS.contains(key)) {
        throw new Refused(new Failure(Errors.INVALID_CONFIG, "unknown or unsupported topic config '" + key
            + "': Brook's topic configs are " + String.join(", ", allNames())));
      }
      brook.add(key);
    }
    return brook;
  }

  private static List<String> allNames() {
    TreeMap<String, String> all = new TreeMap<>(FIXED);
    TopicConfig.KEYS.forEach(k -> all.put(k, ""));
    return new ArrayList<>(all.keySet());
  }

  /** One config entry as Kafka describes it. */
  record Entry(String name, String value, boolean readOnly, ConfigSource source, ConfigType type) {}

  /** Every config of a topic, Brook's keys then the fixed Kafka ones, in name order. */
  static List<Entry> describe(TopicInfo t) {
    TreeMap<String, Entry> entries = new TreeMap<>();
    t.config().forEach((k, v) -> entries.put(k, new Entry(k, v, FIXED_AFTER_CREATION.contains(k),
        t.overrides().containsKey(k) ? ConfigSource.TOPIC_CONFIG : ConfigSource.DEFAULT_CONFIG,
        TYPES.getOrDefault(k, ConfigType.STRING))));
    FIXED.forEach((k, v) -> entries.put(k, new Entry(k, v, true, ConfigSource.DEFAULT_CONFIG,
        TYPES.getOrDefault(k, ConfigType.STRING))));
    return new ArrayList<>(entries.values());
  }

}
