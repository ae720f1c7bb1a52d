package io.brook.broker.groups.classic;

import io.brook.broker.groups.MemberFault;
import io.brook.broker.groups.TopicPartition;
import java.util.List;

/**
 * The answer to a SyncGroup: the member's assignment as its leader encoded it, or a fault. A classic
 * member of a KIP-848 group gets the partitions the broker assigned instead ({@code assignment} null):
 * the Kafka door encodes them in the version of the member's {@code subscription}.
 */
public record SyncAnswer(MemberFault fault, String protocolType, String protocolName, byte[] assignment,
    List<TopicPartition> assigned, byte[] subscription) {

  public SyncAnswer(MemberFault fault, String protocolType, String protocolName, byte[] assignment) {
    this(fault, protocolType, protocolName, assignment, List.of(), new byte[0]);
  }

  public static SyncAnswer refused(MemberFault fault) {
    return new SyncAnswer(fault, null, null, new byte[0]);
  }

  /** The broker's assignment for a classic member of a KIP-848 group. */
  public static SyncAnswer assignedByBroker(String protocolName, List<TopicPartition> assigned, byte[] subscription) {
    return new SyncAnswer(null, "consumer", protocolName, null, List.copyOf(assigned), subscription);
  }
}
