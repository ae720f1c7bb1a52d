package io.brook.broker.kafka.apis;

import io.brook.broker.core.GroupService.ConfiguredGroup;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.GroupConfig;
import io.brook.broker.groups.GroupMode;
import io.brook.broker.kafka.apis.KafkaErrors.Failure;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigSource;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigType;

/**
 * Kafka 4.3.1's group configs (the GROUP config resource) on Brook's group config (D66). A Kafka share
 * group is a Brook ack group, so the share.* keys Brook implements are its ack keys under Kafka's names;
 * dead.letter.topic and max.unsettled.per.partition keep Brook's. Every other key of Kafka's list is
 * answered read-only with the value that holds in Brook (the broker's for consumer.*, Kafka's default
 * where Brook has no such setting) and takes only that value.
 */
final class KafkaGroupConfigs {
  private enum Kind {
    /** A key of Brook's group config, settable on ack groups. */
    BROOK,
    /** One value in Brook: Kafka's default, or the broker's setting named by {@code source}. */
    FIXED
  }

  /**
   * @param source BROOK: Brook's key; FIXED: the broker setting that holds (null: the value is fixed)
   */
  record Key(String name, Kind kind, String source, String value, ConfigType type, String doc) {}

  static final List<Key> KEYS = List.of(
      brook("share.record.lock.duration.ms", GroupConfig.ACK_TIMEOUT_MS, ConfigType.INT,
          "how long a delivered record stays acquired by its member (Brook's ack.timeout.ms: 100..3600000)"),
      brook("share.delivery.count.limit", GroupConfig.MAX_DELIVERY_ATTEMPTS, ConfigType.INT,
          "deliveries before a record is dead-lettered (Brook's max.delivery.attempts: 1..1000000, -1 never)"),
      brook("share.partition.max.record.locks", GroupConfig.MAX_UNSETTLED, ConfigType.INT,
          "records of a partition delivered and not settled (Brook's max.unsettled.per.partition: 1..100000)"),
      brook("share.auto.offset.reset", GroupConfig.AUTO_OFFSET_RESET, ConfigType.STRING,
          "where the group starts on a partition: latest or earliest (Brook's auto.offset.reset; no by_duration)"),
      brook("share.session.timeout.ms", GroupConfig.SHARE_SESSION_TIMEOUT_MS, ConfigType.INT,
          "how long a Kafka share member lives without a heartbeat (1000..3600000)"),
      brook("share.heartbeat.interval.ms", GroupConfig.SHARE_HEARTBEAT_INTERVAL_MS, ConfigType.INT,
          "how often Kafka share members heartbeat (100..600000)"),
      brook(GroupConfig.DEAD_LETTER_TOPIC, GroupConfig.DEAD_LETTER_TOPIC, ConfigType.STRING,
          "Brook: the topic dead-lettered records go to (default: the group's name + .dlq)"),
      brook(GroupConfig.MAX_UNSETTLED, GroupConfig.MAX_UNSETTLED, ConfigType.INT,
          "Brook: the same setting as share.partition.max.record.locks"),
      fixed("share.isolation.level", "read_uncommitted", ConfigType.STRING,
          "Brook has no transactions: every record is committed, both levels read the same"),
      fixed("share.renew.acknowledge.enable", "true", ConfigType.BOOLEAN,
          "renew acknowledgements (ShareAcknowledge v2) extend a record's lease, always on in Brook"),
      fixed("share.assignment.interval.ms", "1000", ConfigType.INT,
          "no meaning in Brook: every member is assigned every partition it subscribes to at once"),
      broker("consumer.session.timeout.ms", "group.consumer.session.timeout.ms", ConfigType.INT),
      broker("consumer.heartbeat.interval.ms", "group.consumer.heartbeat.interval.ms", ConfigType.INT),
      fixed("consumer.assignment.interval.ms", "1000", ConfigType.INT,
          "no meaning in Brook: a consumer group's assignment is computed when its members change"),
      fixed("streams.session.timeout.ms", "45000", ConfigType.INT, noStreams()),
      fixed("streams.heartbeat.interval.ms", "5000", ConfigType.INT, noStreams()),
      fixed("streams.num.standby.replicas", "0", ConfigType.INT, noStreams()),
      fixed("streams.initial.rebalance.delay.ms", "3000", ConfigType.INT, noStreams()),
      fixed("streams.assignment.interval.ms", "1000", ConfigType.INT, noStreams()));

  /** A config entry as DescribeConfigs answers it; synonyms name Brook's key and its default. */
  record Entry(String name, String value, boolean readOnly, ConfigSource source, ConfigType type, String doc,
      List<Synonym> synonyms) {}

  record Synonym(String name, String value, ConfigSource source) {}

  /** What to change in Brook's group config. */
  record Change(Map<String, String> set, List<String> remove) {
    boolean isEmpty() {
      return set.isEmpty() && remove.isEmpty();
    }
  }

  private KafkaGroupConfigs() {}

  /** Every key, for a group in either mode or absent; ack keys are read-only on an offset group. */
  static List<Entry> describe(ConfiguredGroup g, BrokerSettings broker) {
    GroupConfig defaults = GroupConfig.of(g.config().group(), Map.of());
    List<Entry> out = new ArrayList<>();
    for (Key k : KEYS) {
      if (k.kind() == Kind.BROOK) {
        String dflt = defaults.effective().get(k.source());
        String set = g.config().overrides().get(k.source());
        List<Synonym> synonyms = new ArrayList<>();
        if (set != null) {
          synonyms.add(new Synonym(k.source(), set, ConfigSource.GROUP_CONFIG));
        }
        synonyms.add(new Synonym(k.source(), dflt, ConfigSource.DEFAULT_CONFIG));
        out.add(new Entry(k.name(), set != null ? set : dflt, g.mode() == GroupMode.OFFSET,
            set != null ? ConfigSource.GROUP_CONFIG : ConfigSource.DEFAULT_CONFIG, k.type(), k.doc(), synonyms));
      } else {
        BrokerSettings.Setting s = k.source() == null ? null : setting(broker, k.source());
        String value = s != null ? s.value() : k.value();
        ConfigSource source = s != null && !s.isDefault() ? ConfigSource.STATIC_BROKER_CONFIG
            : ConfigSource.DEFAULT_CONFIG;
        List<Synonym> synonyms = s == null ? List.of() : List.of(new Synonym(s.name(), value, source));
        out.add(new Entry(k.name(), value, true, source, k.type(), k.doc(), synonyms));
      }
    }
    return out;
  }

  /**
   * Brook's change for Kafka's SETs and DELETEs on a group. A read-only key takes its one value (a
   * no-op) and its DELETE is a no-op; unknown keys are refused, so are keys set twice to different
   * values (share.partition.max.record.locks and max.unsettled.per.partition are one setting).
   *
   * @param mode the group's (null: absent; it will be an ack group)
   * @throws Refused INVALID_CONFIG naming the first key that cannot be changed
   */
  static Change toBrook(String group, GroupMode mode, Map<String, String> set, List<String> delete,
      BrokerSettings broker) {
    Map<String, String> brookSet = new LinkedHashMap<>();
    Map<String, String> setBy = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : set.entrySet()) {
      Key k = key(e.getKey());
      String value = e.getValue();
      if (value == null) {
        throw invalid("group config " + k.name() + " needs a value");
      }
      if (k.kind() == Kind.FIXED) {
        BrokerSettings.Setting s = k.source() == null ? null : setting(broker, k.source());
        String holds = s != null ? s.value() : k.value();
        if (!holds.equalsIgnoreCase(value.trim())) {
          throw invalid(k.name() + "=" + value + " is not supported: " + fixedWhy(k, holds));
        }
        continue;
      }
      if (mode == GroupMode.OFFSET) {
        throw offsetGroup(group, k.name());
      }
      String earlier = brookSet.putIfAbsent(k.source(), value);
      if (earlier != null && !earlier.equals(value)) {
        throw invalid(setBy.get(k.source()) + "=" + earlier + " and " + k.name() + "=" + value
            + " set one Brook setting (" + k.source() + ") to two values");
      }
      setBy.putIfAbsent(k.source(), k.name());
      try {
        GroupConfig.of(group, Map.of(k.source(), value));
      } catch (BrokerException ex) {
        throw invalid(k.name().equals(k.source()) ? ex.getMessage()
            : k.name() + " (Brook's " + k.source() + "): " + ex.getMessage());
      }
    }
    List<String> remove = new ArrayList<>();
    for (String name : delete) {
      Key k = key(name);
      if (k.kind() == Kind.BROOK && mode == GroupMode.ACK && !remove.contains(k.source())) {
        remove.add(k.source()); // an offset or absent group has nothing set: a no-op, as Kafka's DELETE of an unset key
      }
    }
    return new Change(brookSet, remove);
  }

  private static String fixedWhy(Key k, String holds) {
    return k.source() != null ? "Brook's consumer groups take the broker's " + k.source() + " (" + holds
        + "), set at start, not per group" : k.doc() + " (" + k.name() + "=" + holds + " only)";
  }

  private static Key key(String name) {
    for (Key k : KEYS) {
      if (k.name().equals(name)) {
        return k;
      }
    }
    List<String> names = new ArrayList<>();
    KEYS.forEach(k -> names.add(k.name()));
    throw invalid("unknown group config '" + name + "': the group configs are " + String.join(", ", names));
  }

  private static Refused offsetGroup(String group, String key) {
    return invalid("group '" + group + "' is a consumer group (Brook's offset mode): " + key + " is a share group "
        + "(ack mode) setting; a consumer group's settings are the broker's");
  }

  private static Refused invalid(String message) {
    return new Refused(new Failure(Errors.INVALID_CONFIG, message));
  }

  private static BrokerSettings.Setting setting(BrokerSettings broker, String name) {
    for (BrokerSettings.Setting s : broker.settings()) {
      if (s.name().equals(name)) {
        return s;
      }
    }
    return null;
  }

  private static Key brook(String name, String brookKey, ConfigType type, String doc) {
    return new Key(name, Kind.BROOK, brookKey, null, type, doc);
  }

  private static Key fixed(String name, String value, ConfigType type, String doc) {
    return new Key(name, Kind.FIXED, null, value, type, doc);
  }

  private static Key broker(String name, String brokerKey, ConfigType type) {
    return new Key(name, Kind.FIXED, brokerKey, null, type, "the broker's " + brokerKey + " in Brook, read-only");
  }

  private static String noStreams() {
    return "no meaning in Brook: it has no streams groups (KIP-1071)";
  }
}
