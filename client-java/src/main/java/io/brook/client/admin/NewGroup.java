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

  public static NewGroup offsetMode(String name) {
    return new NewGroup(name, GroupMode.OFFSET, Map.of());
  }

  public static NewGroup ackMode(String name) {
    return new NewGroup(name, GroupMode.ACK, Map.of());
  }

  public NewGroup withConfig(String key, String value) {
    Map<String, String> c = new LinkedHashMap<>(config);
    c.put(key, value);
    return new NewGroup(name, mode, c);
  }
}
