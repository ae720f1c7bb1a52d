package io.brook.client.admin;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A topic to create: its name ({@code [a-zA-Z0-9._-]{1,249}}), partitions (0: the broker's default,
 * 1) and config (retention.ms, retention.bytes, segment.roll, max.record.bytes, max.message.bytes,
 * message.timestamp.type; see docs/API.md).
 */
public record NewTopic(String name, int partitions, Map<String, String> config) {
  public NewTopic {
    config = Map.copyOf(config);
  }

  /** A topic with the broker's default partition count and no config. */
  public static NewTopic of(String name) {
    return new NewTopic(name, 0, Map.of());
  }

  /** This topic with {@code partitions} partitions. */
  public NewTopic withPartitions(int partitions) {
    return new NewTopic(name, partitions, config);
  }

  /** This topic with one more config key. */
  public NewTopic withConfig(String key, String value) {
    Map<String, String> c = new LinkedHashMap<>(config);
    c.put(key, value);
    return new NewTopic(name, partitions, c);
  }
}
