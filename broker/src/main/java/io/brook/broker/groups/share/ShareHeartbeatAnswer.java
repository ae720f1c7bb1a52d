package io.brook.broker.groups.share;

import io.brook.broker.groups.consumer.TopicPartitions;
import java.util.List;

/**
 * The answer to a share member's heartbeat.
 *
 * @param memberEpoch -1 after a leave
 * @param assignment the member's partitions when they changed (or its epoch was behind), else null
 */
public record ShareHeartbeatAnswer(String memberId, int memberEpoch, int heartbeatIntervalMs,
    List<TopicPartitions> assignment) {}
