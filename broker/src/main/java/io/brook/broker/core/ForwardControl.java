package io.brook.broker.core;

import java.util.List;

/**
 * The store-and-forward routes (D68) as the doors and the operators' tools see them: their status,
 * and pause/resume. Pausing is durable (kept with the route's cursor), so a restart keeps it.
 */
public interface ForwardControl {
  /** No route configured. */
  ForwardControl NONE = new ForwardControl() {
    @Override
    public List<ForwardRouteStatus> routes() {
      return List.of();
    }

    @Override
    public ForwardRouteStatus pause(String route) {
      throw ForwardRouteStatus.unknown(route, List.of());
    }

    @Override
    public ForwardRouteStatus resume(String route) {
      throw ForwardRouteStatus.unknown(route, List.of());
    }
  };

  /** Every configured route, in config order. */
  List<ForwardRouteStatus> routes();

  /**
   * Stops forwarding on the route (records in flight are still acknowledged and committed); durable.
   *
   * @throws io.brook.broker.errors.BrokerException INVALID_REQUEST for an unknown route
   */
  ForwardRouteStatus pause(String route);

  /** Forwards again from the route's cursor; durable. Same errors as {@link #pause}. */
  ForwardRouteStatus resume(String route);

  /**
   * The lowest offset of a partition that a route with retention.waits has not forwarded yet, or
   * Long.MAX_VALUE when no such route holds it: what retention keeps while free space allows.
   */
  default long keepFrom(String topic, int partition) {
    return Long.MAX_VALUE;
  }

  /** One route's status, or INVALID_REQUEST naming the known routes. */
  default ForwardRouteStatus route(String route) {
    List<ForwardRouteStatus> all = routes();
    return all.stream().filter(r -> r.name().equals(route)).findFirst()
        .orElseThrow(() -> ForwardRouteStatus.unknown(route, all.stream().map(ForwardRouteStatus::name).toList()));
  }
}
