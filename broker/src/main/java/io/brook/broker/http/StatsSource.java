package io.brook.broker.http;

import io.brook.broker.core.ForwardRouteStatus;
import io.brook.broker.disk.DiskGuard;
import io.brook.broker.groups.GroupManager;
import io.brook.broker.topics.TopicManager;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * What /stats reads.
 *
 * @param startedAtMs wall-clock start of the broker, for uptime
 * @param connections open client connections by listener (grpc, kafka), in the order shown
 * @param forward the forward routes' status now (D71)
 */
public record StatsSource(String version, long startedAtMs, TopicManager topics, GroupManager groups, DiskGuard disk,
    Map<String, IntSupplier> connections, Supplier<List<ForwardRouteStatus>> forward) {}
