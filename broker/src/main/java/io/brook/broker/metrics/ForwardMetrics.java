package io.brook.broker.metrics;

import io.brook.broker.core.ForwardRouteStatus;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The forward routes' metrics (D71), read from the routes' status at scrape time, one series per
 * route (label {@code route}): a route is a handful of series whatever its partition count.
 */
final class ForwardMetrics {
  /**
   * The error kinds ForwardRouteStatus documents, and the forwarder's "reordered" (D68: Kafka wrote
   * records after one that failed): each is a series from the start, at 0 until it happens, so
   * rate() and alerts see the first failure (and the dashboard's query has a series).
   */
  static final List<String> ERROR_KINDS = List.of("timeout", "network", "authentication", "authorization",
      "unknown_topic", "record_too_large", "other", "reordered");

  private final PrometheusRegistry registry;
  private final Supplier<List<ForwardRouteStatus>> routes;

  private ForwardMetrics(PrometheusRegistry registry, Supplier<List<ForwardRouteStatus>> routes) {
    this.registry = registry;
    this.routes = routes;
  }

  static void register(PrometheusRegistry registry, Supplier<List<ForwardRouteStatus>> routes) {
    new ForwardMetrics(registry, routes).register();
  }

  private void register() {
    counter("brook_forward_records_total", "Records a forward route sent and the Kafka cluster acknowledged "
        + "since the broker started (retries after a failure count again).", ForwardRouteStatus::forwardedRecords);
    counter("brook_forward_bytes_total", "Key, value and header bytes of the records counted by "
        + "brook_forward_records_total.", ForwardRouteStatus::forwardedBytes);
    gauge("brook_forward_lag_records", "Records on Brook past a forward route's cursor, over its partitions.",
        ForwardRouteStatus::lagRecords);
    gauge("brook_forward_lag_seconds", "Age of the oldest record a forward route has not forwarded yet "
        + "(now minus its timestamp); 0 when it is caught up.", ForwardRouteStatus::lagSeconds);
    counter("brook_forward_dropped_records_total", "Records retention deleted before a forward route forwarded "
        + "them (they never reach Kafka).", ForwardRouteStatus::droppedRecords);
    CounterWithCallback.builder().name("brook_forward_errors_total")
        .help("Failures of a forward route talking to Kafka, by kind (timeout, network, authentication, "
            + "authorization, unknown_topic, record_too_large, other; reordered: Kafka wrote records after one "
            + "that failed, so they will be there again, out of order).")
        .labelNames("route", "kind")
        .callback(cb -> {
          for (ForwardRouteStatus r : routes.get()) {
            Map<String, Long> byKind = new TreeMap<>(r.errors());
            ERROR_KINDS.forEach(kind -> byKind.putIfAbsent(kind, 0L));
            byKind.forEach((kind, n) -> cb.call(n, r.name(), kind));
          }
        }).register(registry);
    GaugeWithCallback.builder().name("brook_forward_state")
        .help("A forward route's state: 1 for the current one (STARTING, RUNNING, PAUSED, BACKING_OFF, STOPPED), "
            + "0 for the others.")
        .labelNames("route", "state")
        .callback(cb -> {
          for (ForwardRouteStatus r : routes.get()) {
            for (ForwardRouteStatus.State s : ForwardRouteStatus.State.values()) {
              cb.call(s == r.state() ? 1 : 0, r.name(), s.name());
            }
          }
        }).register(registry);
  }

  private void counter(String name, String help, ToDoubleFunction<ForwardRouteStatus> value) {
    CounterWithCallback.builder().name(name).help(help).labelNames("route")
        .callback(cb -> routes.get().forEach(r -> cb.call(value.applyAsDouble(r), r.name()))).register(registry);
  }

  private void gauge(String name, String help, ToDoubleFunction<ForwardRouteStatus> value) {
    GaugeWithCallback.builder().name(name).help(help).labelNames("route")
        .callback(cb -> routes.get().forEach(r -> cb.call(value.applyAsDouble(r), r.name()))).register(registry);
  }
}
