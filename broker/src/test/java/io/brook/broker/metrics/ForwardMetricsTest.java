package io.brook.broker.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.core.FixedForwardRoutes;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The brook_forward_* series as a scrape shows them, read from the routes at scrape time (D71). */
class ForwardMetricsTest {
  static String scrape(PrometheusRegistry registry) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrometheusTextFormatWriter.create().write(out, registry.scrape());
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void everyRouteHasItsSeries() throws Exception {
    FixedForwardRoutes routes = new FixedForwardRoutes(List.of(
        FixedForwardRoutes.route("orders", "orders", "orders", 3),
        FixedForwardRoutes.route("sensors", "sensor.*", "sensor.a", 1)));
    PrometheusRegistry registry = new PrometheusRegistry();
    ForwardMetrics.register(registry, routes::routes);
    List<String> lines = scrape(registry).lines().filter(l -> !l.startsWith("#")).toList();
    assertThat(lines).contains(
        "brook_forward_records_total{route=\"orders\"} 42.0",
        "brook_forward_bytes_total{route=\"orders\"} 4200.0",
        "brook_forward_lag_records{route=\"orders\"} 15.0",
        "brook_forward_lag_records{route=\"sensors\"} 5.0",
        "brook_forward_lag_seconds{route=\"orders\"} 1.5",
        "brook_forward_dropped_records_total{route=\"orders\"} 3.0",
        "brook_forward_errors_total{kind=\"network\",route=\"orders\"} 7.0",
        "brook_forward_errors_total{kind=\"timeout\",route=\"orders\"} 0.0", // every kind from the start
        "brook_forward_state{route=\"orders\",state=\"BACKING_OFF\"} 1.0",
        "brook_forward_state{route=\"orders\",state=\"RUNNING\"} 0.0");

    routes.pause("orders"); // read at scrape time: the next scrape shows the change
    assertThat(scrape(registry)).contains("brook_forward_state{route=\"orders\",state=\"PAUSED\"} 1.0",
        "brook_forward_state{route=\"orders\",state=\"BACKING_OFF\"} 0.0");
  }
}
