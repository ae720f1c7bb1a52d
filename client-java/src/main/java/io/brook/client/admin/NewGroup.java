package io.brook.client.admin;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A group to create, with its mode and config: ack.timeout.ms, max.delivery.attempts,
 * dead.letter.topic, max.unsettled.per.partition, auto.offset.reset (see docs/API.md).
 */
public record NewGroup(String name, GroupMode mode, Map<String, String> config) {
  public NewGroup {
    config = Map.copyOf(config);
  }

  /** A group in offset mode (Kafka's consumer groups), with no config. */
  public static NewGroup offsetMode(String name) {
    return new NewGroup(name, GroupMode.OFFSET, Map.of());
  }

  /** A group in ack mode (leased records, ack / nack / reject), with no config. */
  public static NewGroup ackMode(String name) {
    return new NewGroup(name, GroupMode.ACK, Map.of());
  }

  /** This group with one more config key. */
  public NewGroup withConfig(String key, String value) {
    Map<String, String> c = new LinkedHashMap<>(config);
    c.put(key, value);
    return new NewGroup(name, mode, c);
  }
}
