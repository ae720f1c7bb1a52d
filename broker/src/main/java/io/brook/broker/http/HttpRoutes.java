package io.brook.broker.http;

import io.brook.broker.http.relay.Relay;
import io.brook.broker.metrics.BrokerMetrics;
import java.util.function.Supplier;

/**
 * What the HTTP server answers from.
 *
 * @param notReadyReason null when the broker is ready, else one line saying why not ("recovering
 *     storage", "shutting down")
 * @param access who may read /metrics and /stats
 * @param relay the REST relay's routes (/topics/..., /openapi.json), or null for none
 */
public record HttpRoutes(Supplier<String> notReadyReason, BrokerMetrics metrics, StatsSource stats,
    HttpAccess access, Relay relay) {}
