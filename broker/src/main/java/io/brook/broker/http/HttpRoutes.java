package io.brook.broker.http;

import io.brook.broker.metrics.BrokerMetrics;
import java.util.function.Supplier;

/**
 * What the HTTP server answers from.
 *
 * @param notReadyReason null when the broker is ready, else one line saying why not ("recovering
 *     storage", "shutting down")
 * @param access who may read /metrics and /stats
 */
public record HttpRoutes(Supplier<String> notReadyReason, BrokerMetrics metrics, StatsSource stats,
    HttpAccess access) {}
