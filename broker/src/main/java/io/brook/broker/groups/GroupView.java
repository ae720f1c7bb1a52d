package io.brook.broker.groups;

import java.util.List;
import java.util.Map;

/** A group as DescribeGroup shows it. */
public record GroupView(String name, GroupMode mode, GroupState state, int generation, Map<String, String> config,
    List<Member> members, List<PartitionView> partitions) {

  /** A member: offset mode lists its partitions, ack mode its topics (partition -1) and leases. */
  public record Member(String memberId, String clientId, String address, List<TopicPartition> assignment,
      long lastHeartbeatMs, long leasedRecords, boolean connected) {}

  /**
   * A partition the group consumes or has offsets for.
   *
   * @param committed -1 when nothing is committed
   */
  public record PartitionView(TopicPartition tp, long committed, long logStart, long end, String owner,
      long unsettled, long deadLettered, long redeliveries, long deletedUnsettled) {}
}
