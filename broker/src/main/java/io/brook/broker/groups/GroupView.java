package io.brook.broker.groups;

import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A group as DescribeGroup shows it.
 *
 * @param protocol the members' protocol (offset mode); NONE for ack mode
 * @param protocolType Kafka's protocol type ("consumer"; "" when none)
 * @param protocolName the chosen assignor ("" when none)
 * @param kafkaState the state under Kafka's name ("Empty", "Stable", ...)
 */
public record GroupView(String name, GroupMode mode, GroupProtocol protocol, String protocolType, String protocolName,
    GroupState state, String kafkaState, int generation, Map<String, String> config, List<Member> members,
    List<PartitionView> partitions) {

  /**
   * A member: offset mode lists its partitions, ack mode its topics (partition -1) and leases.
   *
   * @param address the client's host (and port, for gRPC members)
   * @param instanceId a static member's group.instance.id, or null
   * @param metadata a classic member's metadata for the chosen protocol (opaque), or null
   * @param assignmentBytes a classic member's assignment as its leader encoded it (opaque), or null
   */
  public record Member(String memberId, String clientId, String address, List<TopicPartition> assignment,
      long lastHeartbeatMs, long leasedRecords, boolean connected, String instanceId, byte[] metadata,
      byte[] assignmentBytes) {

    /** A member with no Kafka-only details. */
    public Member(String memberId, String clientId, String address, List<TopicPartition> assignment,
        long lastHeartbeatMs, long leasedRecords, boolean connected) {
      this(memberId, clientId, address, assignment, lastHeartbeatMs, leasedRecords, connected, null, null, null);
    }
  }

  /**
   * A partition the group consumes or has offsets for.
   *
   * @param committed -1 when nothing is committed
   */
  public record PartitionView(TopicPartition tp, long committed, long logStart, long end, String owner,
      long unsettled, long deadLettered, long redeliveries, long deletedUnsettled) {}

  /** How its members consume, as gRPC and the CLI show it: "ack", or the protocol ("none", "brook", "classic", "consumer"). */
  public String type() {
    return typeOf(mode, protocol);
  }

  public static String typeOf(GroupMode mode, GroupProtocol protocol) {
    return mode == GroupMode.ACK ? "ack" : protocol.name().toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * The view without what it says about other topics (their partitions, and members' assignments
   * of them): what a caller without a permission on those topics may see.
   */
  public GroupView only(Predicate<String> topics) {
    List<PartitionView> parts = partitions.stream().filter(p -> topics.test(p.tp().topic())).toList();
    List<Member> ms = members.stream().map(m -> new Member(m.memberId(), m.clientId(), m.address(),
        m.assignment().stream().filter(tp -> topics.test(tp.topic())).toList(), m.lastHeartbeatMs(),
        m.leasedRecords(), m.connected(), m.instanceId(), m.metadata(), m.assignmentBytes())).toList();
    return new GroupView(name, mode, protocol, protocolType, protocolName, state, kafkaState, generation, config, ms,
        parts);
  }
}
