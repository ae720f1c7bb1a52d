package io.brook.broker.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A real ForwardControl without Kafka, for the operations' tests (D71): routes given up front whose
 * pause and resume change their state, with the same unknown-route error as the contract's.
 */
public final class FixedForwardRoutes implements ForwardControl {
  private final List<ForwardRouteStatus> routes;

  public FixedForwardRoutes(List<ForwardRouteStatus> routes) {
    this.routes = new ArrayList<>(routes);
  }

  /** A route with some traffic, one error kind, and one cursor per partition of {@code topic}. */
  public static ForwardRouteStatus route(String name, String source, String topic, int partitions) {
    List<ForwardRouteStatus.Cursor> cursors = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      cursors.add(new ForwardRouteStatus.Cursor(topic, p, 10L * p, 10L * p + 5));
    }
    return new ForwardRouteStatus(name, source, "{topic}", "127.0.0.1:1", ForwardRouteStatus.State.BACKING_OFF,
        42, 4200, 5L * partitions, 1.5, 3, Map.of("network", 7L), "Connection refused", 1_700_000_000_000L, cursors);
  }

  @Override
  public synchronized List<ForwardRouteStatus> routes() {
    return List.copyOf(routes);
  }

  @Override
  public synchronized ForwardRouteStatus pause(String route) {
    return set(route, ForwardRouteStatus.State.PAUSED);
  }

  @Override
  public synchronized ForwardRouteStatus resume(String route) {
    return set(route, ForwardRouteStatus.State.STARTING);
  }

  private ForwardRouteStatus set(String route, ForwardRouteStatus.State state) {
    for (int i = 0; i < routes.size(); i++) {
      ForwardRouteStatus r = routes.get(i);
      if (r.name().equals(route)) {
        ForwardRouteStatus changed = new ForwardRouteStatus(r.name(), r.source(), r.target(), r.bootstrap(), state,
            r.forwardedRecords(), r.forwardedBytes(), r.lagRecords(), r.lagSeconds(), r.droppedRecords(), r.errors(),
            r.lastError(), r.lastErrorAtMs(), r.partitions());
        routes.set(i, changed);
        return changed;
      }
    }
    throw ForwardRouteStatus.unknown(route, routes.stream().map(ForwardRouteStatus::name).toList());
  }
}
