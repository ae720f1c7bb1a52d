package io.brook.client.admin;

import io.brook.client.internal.ErrorMapping;
import io.brook.client.internal.PartitionInfos;
import io.brook.protocol.v1.CommittedOffset;
import io.brook.protocol.v1.ForwardRoute;
import io.brook.protocol.v1.GroupDescription;
import io.brook.protocol.v1.GroupPartition;
import io.brook.protocol.v1.GroupSummary;
import io.brook.protocol.v1.MemberDescription;
import io.brook.protocol.v1.Position;
import io.brook.protocol.v1.TopicDescription;
import io.brook.protocol.v1.TopicPartitions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** From the broker's description messages to the admin client's value types, and back for positions. */
final class Descriptions {
  private Descriptions() {}

  static TopicInfo topic(TopicDescription t) {
    return new TopicInfo(t.getName(), t.getTopicId(), t.getConfigMap(), PartitionInfos.of(t, PartitionInfo::new), t.getCreatedAtMs());
  }

  static ForwardRouteInfo forwardRoute(ForwardRoute r) {
    List<ForwardCursor> cursors = r.getPartitionsList().stream()
        .map(c -> new ForwardCursor(c.getTopic(), c.getPartition(), c.getPosition(), c.getEndOffset())).toList();
    ForwardRouteState state = switch (r.getState()) {
      case FORWARD_ROUTE_STATE_STARTING -> ForwardRouteState.STARTING;
      case FORWARD_ROUTE_STATE_RUNNING -> ForwardRouteState.RUNNING;
      case FORWARD_ROUTE_STATE_PAUSED -> ForwardRouteState.PAUSED;
      case FORWARD_ROUTE_STATE_BACKING_OFF -> ForwardRouteState.BACKING_OFF;
      case FORWARD_ROUTE_STATE_STOPPED -> ForwardRouteState.STOPPED;
      default -> ForwardRouteState.UNKNOWN;
    };
    return new ForwardRouteInfo(r.getName(), r.getSource(), r.getTarget(), r.getBootstrapServers(), state,
        r.getForwardedRecords(), r.getForwardedBytes(), r.getLagRecords(), r.getLagSeconds(), r.getDroppedRecords(),
        r.getErrorsMap(), r.getLastError(), r.getLastErrorAtMs(), cursors);
  }

  static GroupListing listing(GroupSummary g) {
    return new GroupListing(g.getName(), mode(g.getMode()), state(g.getState()), g.getMemberCount(), g.getType());
  }

  static GroupInfo group(GroupDescription g) {
    List<MemberInfo> members = new ArrayList<>(g.getMembersCount());
    for (MemberDescription m : g.getMembersList()) {
      Map<String, List<Integer>> assignment = new LinkedHashMap<>();
      for (TopicPartitions tp : m.getAssignmentList()) {
        assignment.computeIfAbsent(tp.getTopic(), k -> new ArrayList<>()).addAll(tp.getPartitionsList());
      }
      assignment.replaceAll((k, v) -> List.copyOf(v));
      members.add(new MemberInfo(m.getMemberId(), m.getClientId(), m.getClientAddress(), assignment,
          m.getLastHeartbeatMs(), m.getLeasedRecords(), m.getConnected(),
          m.getInstanceId().isEmpty() ? null : m.getInstanceId()));
    }
    List<GroupPartitionInfo> partitions = new ArrayList<>(g.getPartitionsCount());
    for (GroupPartition p : g.getPartitionsList()) {
      partitions.add(new GroupPartitionInfo(p.getTopic(), p.getPartition(),
          p.hasCommittedOffset() ? p.getCommittedOffset() : null, p.getLogStartOffset(), p.getEndOffset(),
          p.hasLag() ? p.getLag() : null, p.getMemberId().isEmpty() ? null : p.getMemberId(), p.getUnsettledRecords(),
          p.getDeadLetteredRecords(), p.getRedeliveries(), p.getRetentionDeletedRecords()));
    }
    return new GroupInfo(g.getName(), mode(g.getMode()), state(g.getState()), g.getGeneration(), g.getConfigMap(),
        members, partitions, g.getType());
  }

  static GroupOffset offset(CommittedOffset c) {
    return new GroupOffset(c.getTopic(), c.getPartition(), c.hasOffset() ? c.getOffset() : null, c.getMetadata(),
        c.getCommitTimeMs(), c.getErrorCodeValue() == 0 ? null : ErrorMapping.fromCode(c.getErrorCode(),
            c.getErrorMessage()));
  }

  static List<GroupOffset> offsets(List<CommittedOffset> list) {
    List<GroupOffset> out = new ArrayList<>(list.size());
    list.forEach(c -> out.add(offset(c)));
    return out;
  }

  static GroupMode mode(io.brook.protocol.v1.GroupMode m) {
    return switch (m) {
      case GROUP_MODE_OFFSET -> GroupMode.OFFSET;
      case GROUP_MODE_ACK -> GroupMode.ACK;
      default -> GroupMode.UNKNOWN;
    };
  }

  static io.brook.protocol.v1.GroupMode mode(GroupMode m) {
    return switch (m) {
      case OFFSET -> io.brook.protocol.v1.GroupMode.GROUP_MODE_OFFSET;
      case ACK -> io.brook.protocol.v1.GroupMode.GROUP_MODE_ACK;
      case UNKNOWN -> io.brook.protocol.v1.GroupMode.GROUP_MODE_UNSPECIFIED;
    };
  }

  static GroupState state(io.brook.protocol.v1.GroupState s) {
    return switch (s) {
      case GROUP_STATE_EMPTY -> GroupState.EMPTY;
      case GROUP_STATE_REBALANCING -> GroupState.REBALANCING;
      case GROUP_STATE_STABLE -> GroupState.STABLE;
      default -> GroupState.UNKNOWN;
    };
  }

  static Position position(OffsetPosition p) {
    return switch (p.kind()) {
      case EARLIEST -> Position.newBuilder().setBoundary(io.brook.protocol.v1.Boundary.BOUNDARY_EARLIEST).build();
      case LATEST -> Position.newBuilder().setBoundary(io.brook.protocol.v1.Boundary.BOUNDARY_LATEST).build();
      case OFFSET -> Position.newBuilder().setOffset(p.value()).build();
      case TIMESTAMP -> Position.newBuilder().setTimestampMs(p.value()).build();
    };
  }

  /** topic → partitions (empty: all of them) as the wire's selection. */
  static List<TopicPartitions> selection(Map<String, List<Integer>> partitions) {
    List<TopicPartitions> out = new ArrayList<>();
    partitions.forEach((t, ps) -> out.add(TopicPartitions.newBuilder().setTopic(t).addAllPartitions(ps).build()));
    return out;
  }
}
