package io.brook.broker.archfixture.http;

import io.prometheus.metrics.core.metrics.Counter;

/** Breaks prometheusOnlyInMetrics: http names a Prometheus type instead of asking metrics. */
public class HttpOnPrometheus {
  Counter requests;
}
