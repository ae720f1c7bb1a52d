package io.brook.broker.kafka.apis;

import io.brook.broker.config.BrokerConfig;
import io.brook.broker.config.BrokerKeys;
import io.brook.broker.config.ConfigKey;
import java.util.ArrayList;
import java.util.List;

/** The broker's settings as DescribeConfigs shows them (resource BROKER), read once at start. */
public record BrokerSettings(List<Setting> settings) {
  /**
   * @param value null for a secret
   * @param isDefault the key was not set (its built-in default holds)
   */
  public record Setting(String name, String value, boolean isDefault, boolean sensitive) {}

  public BrokerSettings {
    settings = List.copyOf(settings);
  }

  public static BrokerSettings of(BrokerConfig config) {
    List<Setting> all = new ArrayList<>();
    for (ConfigKey<?> k : BrokerKeys.ALL) {
      all.add(new Setting(k.name(), k.secret() ? null : config.text(k), "default".equals(config.source(k)),
          k.secret()));
    }
    return new BrokerSettings(all);
  }
}
