package io.brook.broker.groups;

import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

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

  /**
   * The view without what it says about other topics (their partitions, and members' assignments
   * of them): what a caller without a permission on those topics may see.
   */
  public GroupView only(Predicate<String> topics) {
    List<PartitionView> parts = partitions.stream().filter(p -> topics.test(p.tp().topic())).toList();
    List<Member> ms = members.stream().map(m -> new Member(m.memberId(), m.clientId(), m.address(),
        m.assignment().stream().filter(tp -> topics.test(tp.topic())).toList(), m.lastHeartbeatMs(),
        m.leasedRecords(), m.connected())).toList();
    return new GroupView(name, mode, state, generation, config, ms, parts);
  }
}
