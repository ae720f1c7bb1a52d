package io.brook.client.admin;

import java.util.List;
import java.util.Map;

/**
 * A forward route to a Kafka cluster as the broker describes it (D68, D71). Counts are since the
 * broker started.
 *
 * @param source a topic name, or a prefix ending in {@code *}
 * @param target the Kafka topic ({@code {topic}} stands for the source topic's name)
 * @param lagRecords records on Brook past the route's cursor
 * @param lagSeconds age of the oldest record not yet forwarded; 0 when caught up
 * @param droppedRecords records retention deleted before they were forwarded
 * @param errors failures by kind (timeout, network, authentication, ...)
 * @param lastError the last failure's message, or "" when none
 * @param lastErrorAtMs when it happened (ms since the epoch), 0 when none
 * @param partitions the cursor per source partition (empty in {@link BrookAdmin#listForwardRoutes()})
 */
public record ForwardRouteInfo(String name, String source, String target, String bootstrapServers,
    ForwardRouteState state, long forwardedRecords, long forwardedBytes, long lagRecords, double lagSeconds,
    long droppedRecords, Map<String, Long> errors, String lastError, long lastErrorAtMs,
    List<ForwardCursor> partitions) {
  public ForwardRouteInfo {
    errors = Map.copyOf(errors);
    partitions = List.copyOf(partitions);
  }
}
