package io.brook.broker.groups.consumer;

import io.brook.broker.groups.MemberFault;
import java.util.List;

/**
 * The answer to a ConsumerGroupHeartbeat.
 *
 * @param fault null when the heartbeat was taken
 * @param message why, when refused
 * @param assignment the partitions the member may consume now, or null when unchanged since it last got them
 */
public record HeartbeatAnswer(MemberFault fault, String message, String memberId, int memberEpoch,
    int heartbeatIntervalMs, List<TopicPartitions> assignment) {

  public static HeartbeatAnswer refused(MemberFault fault, String message) {
    return new HeartbeatAnswer(fault, message, null, -1, 0, null);
  }
}
