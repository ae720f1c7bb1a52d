package io.brook.broker.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * One store-and-forward route (D68), from the config file's {@code forward.<route>.<key>} lines.
 *
 * @param source a topic name, or a prefix ending in {@code *}
 * @param target the Kafka topic; {@code {topic}} in it stands for the source topic's name
 * @param createTarget create an absent target topic with the source's partition count
 * @param retentionWaits retention keeps records not yet forwarded while free space stays above the
 *     produce threshold
 * @param backoffMaxMs the cap of the backoff after a failure
 * @param kafka the kafka-clients producer settings given as {@code kafka.<key>}, as written
 */
public record ForwardRouteConfig(String name, String source, String target, String bootstrap, boolean createTarget,
    boolean retentionWaits, long backoffMaxMs, Map<String, String> kafka) {
  public static final String PREFIX = "forward.";
  public static final String TOPIC_PLACEHOLDER = "{topic}";
  private static final Pattern ROUTE_NAME = Pattern.compile("[a-zA-Z0-9_-]{1,64}");
  private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");
  private static final Pattern TARGET = Pattern.compile("[a-zA-Z0-9._{}-]{1,249}");
  private static final Set<String> KEYS = Set.of("source", "target", "bootstrap.servers", "create.target",
      "retention.waits", "backoff.max.ms");
  /** Producer settings the forwarder owns: its guarantees rest on them. */
  private static final Set<String> FIXED_KAFKA_KEYS = Set.of("acks", "enable.idempotence", "key.serializer",
      "value.serializer", "bootstrap.servers", "transactional.id", "partitioner.class");

  public ForwardRouteConfig {
    kafka = Collections.unmodifiableMap(new LinkedHashMap<>(kafka));
  }

  /** Whether {@code topic} is one this route forwards. */
  public boolean matches(String topic) {
    return source.endsWith("*") ? topic.startsWith(source.substring(0, source.length() - 1)) : topic.equals(source);
  }

  /** The Kafka topic records of {@code sourceTopic} go to. */
  public String targetOf(String sourceTopic) {
    return target.replace(TOPIC_PLACEHOLDER, sourceTopic);
  }

  /** For the start-up log: no kafka.* values (they may hold secrets), only their keys. */
  public String summary() {
    return source + " -> " + target + " on " + bootstrap + (retentionWaits ? ", retention waits" : "")
        + (kafka.isEmpty() ? "" : ", kafka settings " + String.join(", ", kafka.keySet()));
  }

  /**
   * The routes of {@code lines} ({@code forward.*} keys and their values), in name order.
   *
   * @param where where the lines came from, for messages
   * @throws ConfigException naming the first bad key and why
   */
  static List<ForwardRouteConfig> parse(Map<String, String> lines, String where) {
    Map<String, Map<String, String>> byRoute = new TreeMap<>();
    for (Map.Entry<String, String> e : new TreeMap<>(lines).entrySet()) {
      String rest = e.getKey().substring(PREFIX.length());
      int dot = rest.indexOf('.');
      String route = dot < 0 ? rest : rest.substring(0, dot);
      if (dot < 0 || !ROUTE_NAME.matcher(route).matches()) {
        throw bad(e.getKey(), where, "a forward route key is forward.<route>.<key> with a route name of "
            + "letters, digits, '_' and '-' (at most 64)");
      }
      String key = rest.substring(dot + 1);
      if (!KEYS.contains(key) && !key.startsWith("kafka.")) {
        throw bad(e.getKey(), where, "unknown route key '" + key + "' (keys: "
            + String.join(", ", KEYS.stream().sorted().toList()) + ", kafka.<producer setting>)");
      }
      byRoute.computeIfAbsent(route, r -> new LinkedHashMap<>()).put(key, e.getValue().trim());
    }
    List<ForwardRouteConfig> routes = new ArrayList<>();
    byRoute.forEach((route, keys) -> routes.add(route(route, keys, where)));
    return List.copyOf(routes);
  }

  private static ForwardRouteConfig route(String route, Map<String, String> keys, String where) {
    String prefix = PREFIX + route + ".";
    String source = keys.get("source");
    if (source == null || source.isEmpty()) {
      throw bad(prefix + "source", where, "missing: a topic name, or a prefix ending in * (orders.*)");
    }
    String sourceName = source.endsWith("*") ? source.substring(0, source.length() - 1) : source;
    if (sourceName.contains("*") || (!sourceName.isEmpty() && !TOPIC.matcher(sourceName).matches())
        || (sourceName.isEmpty() && !source.equals("*"))) {
      throw bad(prefix + "source", where, "'" + source + "' is not a topic name ([a-zA-Z0-9._-]) or a prefix ending "
          + "in *");
    }
    String target = keys.getOrDefault("target", TOPIC_PLACEHOLDER);
    String sample = target.replace(TOPIC_PLACEHOLDER, "t");
    if (!TARGET.matcher(target).matches() || sample.contains("{") || sample.contains("}")) {
      throw bad(prefix + "target", where, "'" + target + "' is not a Kafka topic name ([a-zA-Z0-9._-], "
          + TOPIC_PLACEHOLDER + " for the source topic's name)");
    }
    if (source.endsWith("*") && !target.contains(TOPIC_PLACEHOLDER)) {
      throw bad(prefix + "target", where, "a prefix route sends each topic to its own Kafka topic: the target "
          + "needs " + TOPIC_PLACEHOLDER + " (e.g. edge-" + TOPIC_PLACEHOLDER + ")");
    }
    String bootstrap = keys.get("bootstrap.servers");
    if (bootstrap == null || bootstrap.isEmpty()) {
      throw bad(prefix + "bootstrap.servers", where, "missing: the Kafka cluster's host:port list");
    }
    Map<String, String> kafka = new LinkedHashMap<>();
    keys.forEach((k, v) -> {
      if (k.startsWith("kafka.")) {
        String setting = k.substring("kafka.".length());
        if (FIXED_KAFKA_KEYS.contains(setting)) {
          throw bad(prefix + k, where, "the forwarder sets " + setting + " itself (acks=all, idempotent, its own "
              + "partitioning); remove the line");
        }
        kafka.put(setting, v);
      }
    });
    long backoffMax = parseLong(keys.getOrDefault("backoff.max.ms", "30000"), prefix + "backoff.max.ms", where);
    if (backoffMax < 100) {
      throw bad(prefix + "backoff.max.ms", where, backoffMax + " is under the first backoff (100 ms)");
    }
    return new ForwardRouteConfig(route, source, target, bootstrap,
        parseBoolean(keys.getOrDefault("create.target", "true"), prefix + "create.target", where),
        parseBoolean(keys.getOrDefault("retention.waits", "false"), prefix + "retention.waits", where),
        backoffMax, kafka);
  }

  private static boolean parseBoolean(String v, String key, String where) {
    if (v.equals("true") || v.equals("false")) {
      return Boolean.parseBoolean(v);
    }
    throw bad(key, where, "'" + v + "' is not true or false");
  }

  private static long parseLong(String v, String key, String where) {
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw bad(key, where, "'" + v + "' is not a whole number");
    }
  }

  private static ConfigException bad(String key, String where, String why) {
    return new ConfigException("bad forward route key " + key + (where.isEmpty() ? "" : " in " + where) + ": " + why);
  }
}
