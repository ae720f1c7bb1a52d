package io.brook.broker.api;

import io.brook.broker.groups.CommitOutcome;
import io.brook.broker.groups.CommitRequest;
import io.brook.broker.groups.CommittedOffset;
import io.brook.broker.groups.Group;
import io.brook.broker.groups.GroupManager;
import io.brook.broker.groups.GroupManager.ResetTo;
import io.brook.broker.groups.GroupMode;
import io.brook.broker.groups.GroupView;
import io.brook.broker.groups.JoinRequest;
import io.brook.broker.groups.JoinResult;
import io.brook.broker.groups.OffsetGroup;
import io.brook.broker.groups.TopicPartition;
import io.brook.broker.security.Caller;
import io.brook.broker.topics.TopicName;
import io.brook.protocol.v1.AlterGroupConfigRequest;
import io.brook.protocol.v1.AlterGroupConfigResponse;
import io.brook.protocol.v1.Boundary;
import io.brook.protocol.v1.CommitOffsetsRequest;
import io.brook.protocol.v1.CommitOffsetsResponse;
import io.brook.protocol.v1.CommitResult;
import io.brook.protocol.v1.CommittedOffset.Builder;
import io.brook.protocol.v1.CreateGroupRequest;
import io.brook.protocol.v1.CreateGroupResponse;
import io.brook.protocol.v1.DeleteGroupRequest;
import io.brook.protocol.v1.DeleteGroupResponse;
import io.brook.protocol.v1.DescribeGroupRequest;
import io.brook.protocol.v1.DescribeGroupResponse;
import io.brook.protocol.v1.FetchCommittedOffsetsRequest;
import io.brook.protocol.v1.FetchCommittedOffsetsResponse;
import io.brook.protocol.v1.GroupDescription;
import io.brook.protocol.v1.GroupPartition;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.GroupState;
import io.brook.protocol.v1.GroupSummary;
import io.brook.protocol.v1.HeartbeatRequest;
import io.brook.protocol.v1.HeartbeatResponse;
import io.brook.protocol.v1.JoinGroupRequest;
import io.brook.protocol.v1.JoinGroupResponse;
import io.brook.protocol.v1.LeaveGroupRequest;
import io.brook.protocol.v1.LeaveGroupResponse;
import io.brook.protocol.v1.ListGroupsRequest;
import io.brook.protocol.v1.ListGroupsResponse;
import io.brook.protocol.v1.MemberDescription;
import io.brook.protocol.v1.OffsetCommit;
import io.brook.protocol.v1.Position;
import io.brook.protocol.v1.ResetGroupOffsetsRequest;
import io.brook.protocol.v1.ResetGroupOffsetsResponse;
import io.brook.protocol.v1.TopicPartitions;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * brook.v1.GroupService: offset-mode membership and commits, and the admin calls of both modes.
 * JoinGroup answers when its rebalance completes, without holding a thread meanwhile.
 */
public final class GroupGrpcService extends GroupServiceGrpc.GroupServiceImplBase {
  private static final int DEFAULT_SESSION_TIMEOUT_MS = 45_000;
  private static final int DEFAULT_REBALANCE_TIMEOUT_MS = 300_000;
  private static final int MAX_CLIENT_ID = 255;

  private final GroupManager groups;
  private final long minSessionMs;
  private final long maxSessionMs;

  public GroupGrpcService(GroupManager groups, long minSessionMs, long maxSessionMs) {
    this.groups = groups;
    this.minSessionMs = minSessionMs;
    this.maxSessionMs = maxSessionMs;
  }

  @Override
  public void joinGroup(JoinGroupRequest request, StreamObserver<JoinGroupResponse> out) {
    CompletableFuture<JoinResult> joined;
    OffsetGroup group;
    try {
      checkMember("JoinGroup", request.getGroup(), request.getTopicsList(), request.getClientId());
      long session = request.getSessionTimeoutMs() == 0 ? DEFAULT_SESSION_TIMEOUT_MS : request.getSessionTimeoutMs();
      if (session < minSessionMs || session > maxSessionMs) {
        throw Errors.invalid("session_timeout_ms " + session + " is outside the broker's bounds [" + minSessionMs
            + ", " + maxSessionMs + "] (group.min/max.session.timeout.ms)");
      }
      long rebalance = request.getRebalanceTimeoutMs() == 0 ? DEFAULT_REBALANCE_TIMEOUT_MS
          : request.getRebalanceTimeoutMs();
      if (rebalance < 1) {
        throw Errors.invalid("rebalance_timeout_ms must be >= 1 (0: " + DEFAULT_REBALANCE_TIMEOUT_MS + ")");
      }
      group = groups.offsetGroup(request.getGroup(), true);
      joined = group.join(new JoinRequest(request.getMemberId(), request.getClientId(),
          ClientAddress.current(), request.getTopicsList(), session, rebalance, Caller.principal()));
    } catch (RuntimeException e) {
      out.onError(Errors.toStatus(e));
      return;
    }
    if (out instanceof ServerCallStreamObserver<JoinGroupResponse> call) {
      call.setOnCancelHandler(() -> group.joinCancelled(joined));
    }
    joined.whenComplete((r, e) -> {
      try {
        if (e != null) {
          out.onError(Errors.toStatus(e instanceof CompletionException ? e.getCause() : e));
          return;
        }
        JoinGroupResponse.Builder b = JoinGroupResponse.newBuilder().setMemberId(r.memberId())
            .setGeneration(r.generation()).setHeartbeatIntervalMs(r.heartbeatIntervalMs())
            .addAllUnknownTopics(r.unknownTopics());
        toTopicPartitions(r.assignment()).forEach(b::addAssignment);
        out.onNext(b.build());
        out.onCompleted();
      } catch (RuntimeException gone) {
        // The caller went away meanwhile (cancelled): nobody to answer.
      }
    });
  }

  /** What a joining member names, in either mode: a group, at least one topic, a client id of sane length. */
  static void checkMember(String call, String group, List<String> topics, String clientId) {
    TopicName.check("group", group);
    if (topics.isEmpty()) {
      throw Errors.invalid(call + " needs at least one topic");
    }
    topics.forEach(TopicName::check);
    if (clientId.length() > MAX_CLIENT_ID) {
      throw Errors.invalid("client_id is longer than " + MAX_CLIENT_ID + " characters");
    }
  }

  /** Answers at once, or (max_wait_ms) when a rebalance starts or the wait ends, without holding a thread. */
  @Override
  public void heartbeat(HeartbeatRequest request, StreamObserver<HeartbeatResponse> out) {
    CompletableFuture<Boolean> rejoin;
    OffsetGroup group;
    try {
      if (request.getMaxWaitMs() < 0) {
        throw Errors.invalid("max_wait_ms must be >= 0 (0: answer at once), not " + request.getMaxWaitMs());
      }
      group = groups.offsetGroup(request.getGroup(), false);
      rejoin = group.heartbeat(request.getMemberId(), request.getGeneration(), request.getMaxWaitMs(),
          Caller.principal());
    } catch (RuntimeException e) {
      out.onError(Errors.toStatus(e));
      return;
    }
    if (!rejoin.isDone() && out instanceof ServerCallStreamObserver<HeartbeatResponse> call) {
      call.setOnCancelHandler(() -> group.heartbeatCancelled(rejoin));
    }
    rejoin.whenComplete((r, e) -> {
      try {
        if (e != null) {
          out.onError(Errors.toStatus(e instanceof CompletionException ? e.getCause() : e));
          return;
        }
        out.onNext(HeartbeatResponse.newBuilder().setRejoin(r).build());
        out.onCompleted();
      } catch (RuntimeException gone) {
        // The caller went away meanwhile (cancelled): nobody to answer.
      }
    });
  }

  @Override
  public void leaveGroup(LeaveGroupRequest request, StreamObserver<LeaveGroupResponse> out) {
    Unary.answer(out, () -> {
      groups.offsetGroup(request.getGroup(), false).leave(request.getMemberId(), Caller.principal());
      return LeaveGroupResponse.getDefaultInstance();
    });
  }

  @Override
  public void commitOffsets(CommitOffsetsRequest request, StreamObserver<CommitOffsetsResponse> out) {
    Unary.answer(out, () -> {
      boolean outsider = request.getMemberId().isEmpty() && request.getGeneration() == 0;
      OffsetGroup group = groups.offsetGroup(request.getGroup(), outsider);
      List<CommitRequest> offsets = new ArrayList<>();
      for (OffsetCommit c : request.getOffsetsList()) {
        offsets.add(new CommitRequest(new TopicPartition(c.getTopic(), c.getPartition()), c.getOffset(),
            c.getMetadata()));
      }
      CommitOffsetsResponse.Builder b = CommitOffsetsResponse.newBuilder();
      for (CommitOutcome o : group.commit(request.getMemberId(), request.getGeneration(), offsets,
          Caller.principal())) {
        CommitResult.Builder r = CommitResult.newBuilder().setTopic(o.tp().topic()).setPartition(o.tp().partition());
        if (o.error() != null) {
          r.setErrorCode(Errors.code(o.error().error())).setErrorMessage(o.error().getMessage());
        }
        b.addResults(r);
      }
      return b.build();
    });
  }

  @Override
  public void fetchCommittedOffsets(FetchCommittedOffsetsRequest request,
      StreamObserver<FetchCommittedOffsetsResponse> out) {
    Unary.answer(out, () -> {
      // Only topics the caller may see (a topic it names needs that permission: MethodRules).
      Map<TopicPartition, CommittedOffset> committed = groups.committed(request.getGroup(), Caller.visibleTopics());
      FetchCommittedOffsetsResponse.Builder b = FetchCommittedOffsetsResponse.newBuilder();
      if (request.getPartitionsCount() == 0) {
        committed.forEach((tp, co) -> b.addOffsets(committedOffset(tp, co)));
        return b.build();
      }
      for (TopicPartitions tps : request.getPartitionsList()) {
        if (tps.getPartitionsCount() == 0) {
          committed.forEach((tp, co) -> {
            if (tp.topic().equals(tps.getTopic())) {
              b.addOffsets(committedOffset(tp, co));
            }
          });
        }
        for (int p : tps.getPartitionsList()) {
          TopicPartition tp = new TopicPartition(tps.getTopic(), p);
          b.addOffsets(committedOffset(tp, committed.get(tp)));
        }
      }
      return b.build();
    });
  }

  @Override
  public void createGroup(CreateGroupRequest request, StreamObserver<CreateGroupResponse> out) {
    Unary.answer(out, () -> {
      GroupMode mode = switch (request.getMode()) {
        case GROUP_MODE_UNSPECIFIED, GROUP_MODE_OFFSET -> GroupMode.OFFSET;
        case GROUP_MODE_ACK -> GroupMode.ACK;
        default -> throw Errors.invalid("unknown group mode " + request.getModeValue());
      };
      Group g = groups.create(request.getGroup(), mode, request.getConfigMap());
      return CreateGroupResponse.newBuilder().setGroup(describe(g)).build();
    });
  }

  @Override
  public void alterGroupConfig(AlterGroupConfigRequest request, StreamObserver<AlterGroupConfigResponse> out) {
    Unary.answer(out, () -> {
      Group g = groups.alterConfig(request.getGroup(), request.getSetMap(), request.getRemoveList());
      return AlterGroupConfigResponse.newBuilder().setGroup(describe(g)).build();
    });
  }

  @Override
  public void listGroups(ListGroupsRequest request, StreamObserver<ListGroupsResponse> out) {
    Unary.answer(out, () -> {
      ListGroupsResponse.Builder b = ListGroupsResponse.newBuilder();
      for (Group g : groups.list()) {
        b.addGroups(GroupSummary.newBuilder().setName(g.name()).setMode(mode(g.mode())).setState(state(g.state()))
            .setMemberCount(g.memberCount()));
      }
      return b.build();
    });
  }

  @Override
  public void describeGroup(DescribeGroupRequest request, StreamObserver<DescribeGroupResponse> out) {
    Unary.answer(out, () -> DescribeGroupResponse.newBuilder()
        .setGroup(describe(groups.get(request.getGroup()))).build());
  }

  @Override
  public void resetGroupOffsets(ResetGroupOffsetsRequest request, StreamObserver<ResetGroupOffsetsResponse> out) {
    Unary.answer(out, () -> {
      if (!request.hasPosition()) {
        throw Errors.invalid("a reset needs a position: an offset, a timestamp, EARLIEST or LATEST");
      }
      Position pos = request.getPosition();
      ResetTo to = switch (pos.getKindCase()) {
        case OFFSET -> new ResetTo.Offset(pos.getOffset());
        case TIMESTAMP_MS -> new ResetTo.Time(pos.getTimestampMs());
        case BOUNDARY -> {
          if (pos.getBoundary() == Boundary.BOUNDARY_EARLIEST) {
            yield new ResetTo.Earliest();
          }
          if (pos.getBoundary() == Boundary.BOUNDARY_LATEST) {
            yield new ResetTo.Latest();
          }
          throw Errors.invalid("position boundary must be EARLIEST or LATEST");
        }
        default -> throw Errors.invalid("a reset needs a position: an offset, a timestamp, EARLIEST or LATEST");
      };
      Map<String, List<Integer>> partitions = new LinkedHashMap<>();
      for (TopicPartitions tps : request.getPartitionsList()) {
        partitions.computeIfAbsent(tps.getTopic(), k -> new ArrayList<>()).addAll(tps.getPartitionsList());
      }
      ResetGroupOffsetsResponse.Builder b = ResetGroupOffsetsResponse.newBuilder();
      for (GroupManager.ResetOutcome o : groups.reset(request.getGroup(), partitions, to, request.getDryRun(),
          Caller.resettableTopics())) {
        Builder c = io.brook.protocol.v1.CommittedOffset.newBuilder().setTopic(o.tp().topic())
            .setPartition(o.tp().partition());
        if (o.error() != null) {
          c.setErrorCode(Errors.code(o.error().error())).setErrorMessage(o.error().getMessage());
        } else {
          c.setOffset(o.offset());
        }
        b.addOffsets(c);
      }
      return b.build();
    });
  }

  @Override
  public void deleteGroup(DeleteGroupRequest request, StreamObserver<DeleteGroupResponse> out) {
    Unary.answer(out, () -> {
      groups.delete(request.getGroup());
      return DeleteGroupResponse.getDefaultInstance();
    });
  }

  /** The group as the caller may see it: its partitions and members' topics only on topics it may see. */
  private static GroupDescription describe(Group g) {
    return describe(g.describe().only(Caller.visibleTopics()));
  }

  static GroupDescription describe(GroupView v) {
    GroupDescription.Builder b = GroupDescription.newBuilder().setName(v.name()).setMode(mode(v.mode()))
        .setState(state(v.state())).setGeneration(v.generation()).putAllConfig(v.config());
    for (GroupView.Member m : v.members()) {
      MemberDescription.Builder mb = MemberDescription.newBuilder().setMemberId(m.memberId())
          .setClientId(m.clientId()).setClientAddress(m.address()).setLastHeartbeatMs(m.lastHeartbeatMs())
          .setLeasedRecords(m.leasedRecords()).setConnected(m.connected());
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

  private static io.brook.protocol.v1.CommittedOffset committedOffset(TopicPartition tp, CommittedOffset co) {
    Builder b = io.brook.protocol.v1.CommittedOffset.newBuilder().setTopic(tp.topic()).setPartition(tp.partition());
    if (co != null) {
      b.setOffset(co.offset()).setMetadata(co.metadata()).setCommitTimeMs(co.timeMs());
    }
    return b.build();
  }

  private static io.brook.protocol.v1.GroupMode mode(GroupMode m) {
    return m == GroupMode.ACK ? io.brook.protocol.v1.GroupMode.GROUP_MODE_ACK
        : io.brook.protocol.v1.GroupMode.GROUP_MODE_OFFSET;
  }

  private static GroupState state(io.brook.broker.groups.GroupState s) {
    return switch (s) {
      case EMPTY -> GroupState.GROUP_STATE_EMPTY;
      case REBALANCING -> GroupState.GROUP_STATE_REBALANCING;
      case STABLE -> GroupState.GROUP_STATE_STABLE;
    };
  }


}
