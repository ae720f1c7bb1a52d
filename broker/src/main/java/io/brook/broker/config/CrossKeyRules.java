package io.brook.broker.config;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * The rules between keys: combinations of values that each parse alone but together would make
 * the broker refuse every call of a kind, or lose a protection it promises. Checked once at start,
 * before anything is built; a broken rule names both keys, their values and where each came from.
 * docs/CONFIGURATION.md lists them (rendered from {@link #ALL}).
 */
public final class CrossKeyRules {
  private CrossKeyRules() {}

  /**
   * One rule.
   *
   * @param requires what it requires, for the docs
   * @param broken why {@code config} breaks it, or null when it does not
   */
  record Rule(String requires, Function<BrokerConfig, String> broken) {}

  private static final Set<String> WILDCARDS = Set.of("0.0.0.0", "::", "0:0:0:0:0:0:0:0");

  static final List<Rule> ALL = List.of(
      new Rule("`group.min.session.timeout.ms` ≤ `group.max.session.timeout.ms`: else every JoinGroup is refused",
          c -> c.get(BrokerKeys.GROUP_MIN_SESSION_TIMEOUT_MS) <= c.get(BrokerKeys.GROUP_MAX_SESSION_TIMEOUT_MS) ? null
              : named(c, BrokerKeys.GROUP_MIN_SESSION_TIMEOUT_MS) + " is above "
                  + named(c, BrokerKeys.GROUP_MAX_SESSION_TIMEOUT_MS)
                  + ": every JoinGroup would be refused; lower the minimum or raise the maximum"),
      new Rule("`default.partitions` ≤ `max.partitions`: else every topic created without a partition count is "
          + "refused",
          c -> c.get(BrokerKeys.DEFAULT_PARTITIONS) <= c.get(BrokerKeys.MAX_PARTITIONS) ? null
              : named(c, BrokerKeys.DEFAULT_PARTITIONS) + " is above " + named(c, BrokerKeys.MAX_PARTITIONS)
                  + ": every topic created without a partition count would be refused; lower the first or raise "
                  + "the second"),
      new Rule("`disk.free.min.bytes` > `disk.headroom.bytes` when `disk.free.per.writer.bytes` is 0 and the "
          + "headroom is not: else produce stops only where commits and acks stop too, and consumers cannot "
          + "drain a full disk (D19)", CrossKeyRules::diskHeadroomBelowThreshold),
      new Rule("`grpc.listen` and `http.listen` not the same port on the same host (or a wildcard host such as "
          + "0.0.0.0): else the second server cannot bind", CrossKeyRules::listenAddressesDiffer),
      new Rule("`kafka.advertised` set when `kafka.listen` binds a wildcard host (0.0.0.0, ::): else clients are "
          + "told an address they cannot connect to", CrossKeyRules::kafkaAdvertisedReachable));

  /** Refuses a config that breaks a rule, with one line naming every broken rule's keys. */
  public static void check(BrokerConfig config) {
    List<String> broken = ALL.stream().map(r -> r.broken().apply(config)).filter(Objects::nonNull).toList();
    if (!broken.isEmpty()) {
      throw new ConfigException(String.join("; ", broken));
    }
  }

  /** The produce threshold with one writer is above the headroom, so metadata writes have room of their own. */
  private static String diskHeadroomBelowThreshold(BrokerConfig c) {
    long headroom = c.get(BrokerKeys.DISK_HEADROOM_BYTES);
    if (headroom == 0 || c.get(BrokerKeys.DISK_FREE_PER_WRITER_BYTES) > 0
        || c.get(BrokerKeys.DISK_FREE_MIN_BYTES) > headroom) {
      return null; // headroom 0 and no threshold above it is a guard turned off, not a contradiction
    }
    return named(c, BrokerKeys.DISK_FREE_MIN_BYTES) + " is not above " + named(c, BrokerKeys.DISK_HEADROOM_BYTES)
        + " while " + named(c, BrokerKeys.DISK_FREE_PER_WRITER_BYTES) + ": produce would be refused only where "
        + "commits, acks and dead letters are refused too, leaving consumers no room to drain a full disk; raise "
        + "disk.free.min.bytes above the headroom or set disk.free.per.writer.bytes";
  }

  private static String listenAddressesDiffer(BrokerConfig c) {
    InetSocketAddress grpc = c.get(BrokerKeys.GRPC_LISTEN);
    InetSocketAddress http = c.get(BrokerKeys.HTTP_LISTEN);
    if (grpc.getPort() == 0 || grpc.getPort() != http.getPort() || !sameHost(grpc, http)) {
      return null; // port 0 picks a free port for each; other names of one host are left to the bind
    }
    return named(c, BrokerKeys.GRPC_LISTEN) + " and " + named(c, BrokerKeys.HTTP_LISTEN)
        + " are the same address: the HTTP server could not bind it; give one of them another port (or 0)";
  }

  private static String kafkaAdvertisedReachable(BrokerConfig c) {
    java.util.Optional<InetSocketAddress> listen = c.get(BrokerKeys.KAFKA_LISTEN);
    if (listen.isEmpty() || c.get(BrokerKeys.KAFKA_ADVERTISED).isPresent()
        || !Parsers.isWildcard(listen.get().getHostString())) {
      return null;
    }
    return named(c, BrokerKeys.KAFKA_LISTEN) + " binds every interface, and kafka.advertised is not set: Kafka "
        + "clients would be told to connect to " + listen.get().getHostString() + "; set kafka.advertised to the "
        + "host:port clients reach this broker at";
  }

  private static boolean sameHost(InetSocketAddress a, InetSocketAddress b) {
    String x = a.getHostString().toLowerCase(Locale.ROOT);
    String y = b.getHostString().toLowerCase(Locale.ROOT);
    return x.equals(y) || WILDCARDS.contains(x) || WILDCARDS.contains(y);
  }

  /** "key=value (from source)", as the messages of single keys name them. */
  private static String named(BrokerConfig c, ConfigKey<?> key) {
    return key.name() + "=" + BrokerConfig.render(c.get(key)) + " (from " + c.source(key) + ")";
  }
}
