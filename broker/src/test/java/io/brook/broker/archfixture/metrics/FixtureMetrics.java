package io.brook.broker.archfixture.metrics;

import io.prometheus.metrics.core.metrics.Counter;

/** Metrics on Prometheus: keeps the rules. */
public class FixtureMetrics {
  Counter requests;
}
