package io.brook.broker.kafka.wire;

/**
 * What one Kafka connection may take.
 *
 * @param maxFrameBytes the largest request frame (max.request.bytes); a larger one closes the connection
 * @param maxInflight requests read and not yet answered before reading pauses (kafka.connection.max.inflight)
 * @param maxIdleMs nothing read or written for this long closes the connection (kafka.connections.max.idle.ms);
 *     0: never
 */
public record ConnectionLimits(int maxFrameBytes, int maxInflight, long maxIdleMs) {}
