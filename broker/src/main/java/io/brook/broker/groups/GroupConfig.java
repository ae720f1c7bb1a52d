package io.brook.broker.groups;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.topics.TopicName;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A group's config: the keys set on it, over the defaults. The ack.* keys, the dead-letter topic and
 * the unsettled limit matter in ack mode; auto.offset.reset is where an ack group starts on a topic
 * (offset-mode clients apply their own, as in Kafka).
 */
public record GroupConfig(String group, Map<String, String> overrides) {
  public static final String ACK_TIMEOUT_MS = "ack.timeout.ms";
  public static final String MAX_DELIVERY_ATTEMPTS = "max.delivery.attempts";
  public static final String DEAD_LETTER_TOPIC = "dead.letter.topic";
  public static final String MAX_UNSETTLED = "max.unsettled.per.partition";
  public static final String AUTO_OFFSET_RESET = "auto.offset.reset";
  /** Kafka share members (KIP-932) of an ack group: how long one lives without a heartbeat. */
  public static final String SHARE_SESSION_TIMEOUT_MS = "share.session.timeout.ms";
  /** Kafka share members: how often they heartbeat. */
  public static final String SHARE_HEARTBEAT_INTERVAL_MS = "share.heartbeat.interval.ms";
  public static final List<String> KEYS = List.of(ACK_TIMEOUT_MS, MAX_DELIVERY_ATTEMPTS, DEAD_LETTER_TOPIC,
      MAX_UNSETTLED, AUTO_OFFSET_RESET, SHARE_SESSION_TIMEOUT_MS, SHARE_HEARTBEAT_INTERVAL_MS);

  public GroupConfig {
    overrides = Map.copyOf(overrides);
    for (Map.Entry<String, String> e : overrides.entrySet()) {
      check(group, e.getKey(), e.getValue());
    }
    // A member must be able to heartbeat before its session ends (Kafka's bounds never overlap).
    if (overrides.containsKey(SHARE_SESSION_TIMEOUT_MS) || overrides.containsKey(SHARE_HEARTBEAT_INTERVAL_MS)) {
      long session = Long.parseLong(overrides.getOrDefault(SHARE_SESSION_TIMEOUT_MS,
          defaultOf(SHARE_SESSION_TIMEOUT_MS)));
      long heartbeat = Long.parseLong(overrides.getOrDefault(SHARE_HEARTBEAT_INTERVAL_MS,
          defaultOf(SHARE_HEARTBEAT_INTERVAL_MS)));
      if (heartbeat >= session) {
        throw bad(SHARE_HEARTBEAT_INTERVAL_MS, Long.toString(heartbeat), "must be below "
            + SHARE_SESSION_TIMEOUT_MS + " (" + session + "), or every member times out between its heartbeats");
      }
    }
  }


  public static GroupConfig of(String group, Map<String, String> overrides) {
    return new GroupConfig(group, overrides);
  }

  public GroupConfig with(Map<String, String> set, Collection<String> remove) {
    Map<String, String> m = new LinkedHashMap<>(overrides);
    for (String k : remove) {
      if (!KEYS.contains(k)) {
        throw unknownKey(k);
      }
      m.remove(k);
    }
    m.putAll(set);
    return new GroupConfig(group, m);
  }

  public long ackTimeoutMs() {
    return Long.parseLong(get(ACK_TIMEOUT_MS));
  }

  /** -1: never dead-letter. */
  public int maxDeliveryAttempts() {
    return Integer.parseInt(get(MAX_DELIVERY_ATTEMPTS));
  }

  public String deadLetterTopic() {
    return get(DEAD_LETTER_TOPIC);
  }

  public int maxUnsettled() {
    return Integer.parseInt(get(MAX_UNSETTLED));
  }

  public int shareSessionTimeoutMs() {
    return Integer.parseInt(get(SHARE_SESSION_TIMEOUT_MS));
  }

  public int shareHeartbeatIntervalMs() {
    return Integer.parseInt(get(SHARE_HEARTBEAT_INTERVAL_MS));
  }

  public boolean startAtEarliest() {
    return get(AUTO_OFFSET_RESET).equals("earliest");
  }

  /** Every key with its effective value. */
  public Map<String, String> effective() {
    Map<String, String> m = new TreeMap<>();
    for (String k : KEYS) {
      m.put(k, get(k));
    }
    return m;
  }

  private String get(String key) {
    String v = overrides.get(key);
    return v != null ? v : defaultOf(key);
  }

  private String defaultOf(String key) {
    return switch (key) {
      case ACK_TIMEOUT_MS -> "30000";
      case MAX_DELIVERY_ATTEMPTS -> "5";
      case DEAD_LETTER_TOPIC -> group + ".dlq";
      case MAX_UNSETTLED -> "1000";
      case AUTO_OFFSET_RESET -> "latest";
      case SHARE_SESSION_TIMEOUT_MS -> "45000";
      case SHARE_HEARTBEAT_INTERVAL_MS -> "5000";
      default -> throw unknownKey(key);
    };
  }

  private static void check(String group, String key, String value) {
    switch (key) {
      case ACK_TIMEOUT_MS -> range(key, value, 100, 3_600_000);
      case MAX_DELIVERY_ATTEMPTS -> {
        if (!value.equals("-1")) {
          range(key, value, 1, 1_000_000);
        }
      }
      case DEAD_LETTER_TOPIC -> {
        TopicName.check(value);
        if (value.equals(group)) {
          throw bad(key, value, "a group's dead-letter topic must not be named like the group");
        }
      }
      case MAX_UNSETTLED -> range(key, value, 1, 100_000);
      case AUTO_OFFSET_RESET -> {
        if (!value.equals("latest") && !value.equals("earliest")) {
          throw bad(key, value, "use latest or earliest");
        }
      }
      case SHARE_SESSION_TIMEOUT_MS -> range(key, value, 1000, 3_600_000);
      case SHARE_HEARTBEAT_INTERVAL_MS -> range(key, value, 100, 600_000);
      default -> throw unknownKey(key);
    }
  }

  private static void range(String key, String value, long min, long max) {
    long v;
    try {
      v = Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw bad(key, value, "not a whole number");
    }
    if (v < min || v > max || !value.equals(value.trim())) {
      throw bad(key, value, "must be between " + min + " and " + max);
    }
  }

  private static BrokerException bad(String key, String value, String why) {
    return new BrokerException(BrokerError.INVALID_REQUEST, "invalid group config " + key + "=" + value + ": " + why);
  }

  private static BrokerException unknownKey(String key) {
    return new BrokerException(BrokerError.INVALID_REQUEST, "unknown group config key '" + key + "' (known: "
        + String.join(", ", KEYS) + ")");
  }
}
