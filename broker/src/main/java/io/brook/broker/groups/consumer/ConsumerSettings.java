package io.brook.broker.groups.consumer;

/**
 * The broker's KIP-848 settings: Kafka decides these on the broker, not the client.
 *
 * @param heartbeatIntervalMs group.consumer.heartbeat.interval.ms: how often members heartbeat
 * @param sessionTimeoutMs group.consumer.session.timeout.ms: a member silent this long is removed
 */
public record ConsumerSettings(int heartbeatIntervalMs, long sessionTimeoutMs) {}
