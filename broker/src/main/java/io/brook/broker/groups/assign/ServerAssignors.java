package io.brook.broker.groups.assign;

import java.util.List;
import java.util.Optional;

/** The server assignors Brook offers, the first being the default (as Kafka's group.consumer.assignors). */
public final class ServerAssignors {
  private static final List<ServerAssignor> ALL = List.of(new UniformAssignor(), new RangeAssignor());

  private ServerAssignors() {}

  /** "uniform": what a group uses when no member names one. */
  public static ServerAssignor defaultAssignor() {
    return ALL.get(0);
  }

  public static Optional<ServerAssignor> byName(String name) {
    return ALL.stream().filter(a -> a.name().equals(name)).findFirst();
  }

  /** The names, for an error message. */
  public static List<String> names() {
    return ALL.stream().map(ServerAssignor::name).toList();
  }
}
