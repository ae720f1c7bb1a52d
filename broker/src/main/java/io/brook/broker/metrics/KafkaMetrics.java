package io.brook.broker.metrics;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** The Kafka listener's metrics, in the broker's registry (D44). */
public final class KafkaMetrics implements KafkaObserver {
  private static final double[] BOUNDS = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
      5, 10, 30, 60};
  private final AtomicInteger open = new AtomicInteger();
  private final Histogram duration;
  private final Counter errors;
  private final Counter refused;

  KafkaMetrics(PrometheusRegistry registry) {
    GaugeWithCallback.builder().name("brook_kafka_connections").help("Open Kafka protocol client connections.")
        .callback(cb -> cb.call(open.get())).register(registry);
    duration = Histogram.builder().name("brook_kafka_request_duration_seconds")
        .help("Time from a Kafka request's arrival to its answer being handed to the socket (for Produce with "
            + "acks=0, to its being done), by API (Kafka's name: Produce, Metadata, ...).")
        .labelNames("api").classicOnly().classicUpperBounds(BOUNDS).register(registry);
    errors = Counter.builder().name("brook_kafka_errors_total")
        .help("Error codes in Kafka answers, by API and Kafka error name (NONE included), counted as Kafka's "
            + "ErrorsPerSec does: once per partition, topic or request the answer gives an error code for.")
        .labelNames("api", "error").register(registry);
    refused = Counter.builder().name("brook_kafka_refused_connections_total")
        .help("Kafka connections closed because of what the client sent, by reason (oversize_frame, unknown_api, "
            + "unsupported_version, malformed, handler_failed, tls).")
        .labelNames("reason").register(registry);
  }

  /** Open Kafka connections, for /stats. */
  public int connections() {
    return open.get();
  }

  @Override
  public void opened() {
    open.incrementAndGet();
  }

  @Override
  public void closed() {
    open.decrementAndGet();
  }

  @Override
  public void answered(String api, long nanos, Map<String, Integer> errorCounts) {
    duration.labelValues(api).observe(nanos / 1e9);
    errorCounts.forEach((error, n) -> errors.labelValues(api, error).inc(n));
  }

  @Override
  public void refused(String reason) {
    refused.labelValues(reason).inc();
  }
}
