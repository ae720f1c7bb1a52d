package io.brook.broker.api;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.CommittedOffset;
import io.brook.broker.groups.GroupMode;
import io.brook.broker.groups.GroupView;
import io.brook.broker.groups.TopicPartition;
import io.brook.protocol.v1.GroupDescription;
import io.brook.protocol.v1.GroupPartition;
import io.brook.protocol.v1.GroupState;
import io.brook.protocol.v1.MemberDescription;
import io.brook.protocol.v1.TopicPartitions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Groups' values as brook.v1 messages. */
final class GroupMapper {
  private GroupMapper() {}

  static GroupDescription describe(GroupView v) {
    GroupDescription.Builder b = GroupDescription.newBuilder().setName(v.name()).setMode(mode(v.mode()))
        .setState(state(v.state())).setGeneration(v.generation()).putAllConfig(v.config()).setType(v.type());
    for (GroupView.Member m : v.members()) {
      MemberDescription.Builder mb = MemberDescription.newBuilder().setMemberId(m.memberId())
          .setClientId(m.clientId()).setClientAddress(m.address()).setLastHeartbeatMs(m.lastHeartbeatMs())
          .setLeasedRecords(m.leasedRecords()).setConnected(m.connected())
          .setInstanceId(m.instanceId() == null ? "" : m.instanceId());
      toTopicPartitions(m.assignment()).forEach(mb::addAssignment);
      b.addMembers(mb);
    }
    for (GroupView.PartitionView p : v.partitions()) {
      GroupPartition.Builder pb = GroupPartition.newBuilder().setTopic(p.tp().topic()).setPartition(p.tp().partition())
          .setLogStartOffset(p.logStart()).setEndOffset(p.end()).setMemberId(p.owner())
          .setUnsettledRecords(p.unsettled()).setDeadLetteredRecords(p.deadLettered())
          .setRedeliveries(p.redeliveries()).setRetentionDeletedRecords(p.deletedUnsettled());
      if (p.committed() >= 0) {
        pb.setCommittedOffset(p.committed());
        if (p.end() >= 0) {
          pb.setLag(Math.max(0, p.end() - p.committed()));
        }
      }
      b.addPartitions(pb);
    }
    return b.build();
  }

  /** Partitions grouped by topic; a partition of -1 (ack mode: a whole topic) gives an empty list. */
  static List<TopicPartitions> toTopicPartitions(List<TopicPartition> tps) {
    Map<String, TopicPartitions.Builder> byTopic = new LinkedHashMap<>();
    for (TopicPartition tp : tps) {
      TopicPartitions.Builder b = byTopic.computeIfAbsent(tp.topic(), t -> TopicPartitions.newBuilder().setTopic(t));
      if (tp.partition() >= 0) {
        b.addPartitions(tp.partition());
      }
    }
    return byTopic.values().stream().map(TopicPartitions.Builder::build).toList();
  }

  /** The most partitions a JoinGroup's owned may list: far above what one member holds, and a bound on memory. */
  static final int MAX_OWNED = 100_000;

  /**
   * A JoinGroup's owned partitions, flattened; a topic with no partitions names none.
   *
   * @throws BrokerException INVALID_REQUEST when they are more than {@link #MAX_OWNED}
   */
  static List<TopicPartition> owned(List<TopicPartitions> grouped) {
    long count = grouped.stream().mapToLong(TopicPartitions::getPartitionsCount).sum();
    if (count > MAX_OWNED) {
      throw new BrokerException(BrokerError.INVALID_REQUEST, "owned lists " + count + " partitions, more than "
          + MAX_OWNED + ": list only the partitions this member holds");
    }
    List<TopicPartition> flat = new ArrayList<>();
    for (TopicPartitions tps : grouped) {
      tps.getPartitionsList().forEach(p -> flat.add(new TopicPartition(tps.getTopic(), p)));
    }
    return flat;
  }

  static io.brook.protocol.v1.CommittedOffset committedOffset(TopicPartition tp, CommittedOffset co) {
    io.brook.protocol.v1.CommittedOffset.Builder b = io.brook.protocol.v1.CommittedOffset.newBuilder()
        .setTopic(tp.topic()).setPartition(tp.partition());
    if (co != null) {
      b.setOffset(co.offset()).setMetadata(co.metadata()).setCommitTimeMs(co.timeMs());
    }
    return b.build();
  }

  static io.brook.protocol.v1.GroupMode mode(GroupMode m) {
    return m == GroupMode.ACK ? io.brook.protocol.v1.GroupMode.GROUP_MODE_ACK
        : io.brook.protocol.v1.GroupMode.GROUP_MODE_OFFSET;
  }

  static GroupState state(io.brook.broker.groups.GroupState s) {
    return switch (s) {
      case EMPTY -> GroupState.GROUP_STATE_EMPTY;
      case REBALANCING -> GroupState.GROUP_STATE_REBALANCING;
      case STABLE -> GroupState.GROUP_STATE_STABLE;
    };
  }
}
