package io.brook.broker.groups;

import io.brook.broker.disk.DiskGuard;
import io.brook.broker.topics.TopicManager;
import java.time.InstantSource;
import java.util.concurrent.Executor;

/**
 * What groups need from the broker.
 *
 * @param executor runs ack-mode deliveries (woken by appends, acks and the ticker)
 * @param minSessionTimeoutMs bounds on what members may ask for (group.min/max.session.timeout.ms)
 * @param maxHeartbeatIntervalMs the longest heartbeat interval an offset-mode member is given (group.heartbeat.interval.ms)
 * @param disk refuses journal writes and dead letters once the headroom for them is used up
 */
public record GroupContext(TopicManager topics, InstantSource clock, Executor executor, long minSessionTimeoutMs,
    long maxSessionTimeoutMs, long maxHeartbeatIntervalMs, DiskGuard disk) {}
