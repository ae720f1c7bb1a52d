package io.brook.broker.api;

import io.brook.broker.core.GroupListing;
import io.brook.broker.core.GroupService;
import io.brook.broker.core.OffsetQuery;
import io.brook.broker.core.ParkedCall;
import io.brook.broker.groups.CommitOutcome;
import io.brook.broker.groups.CommitRequest;
import io.brook.broker.groups.CommittedOffset;
import io.brook.broker.groups.GroupManager.ResetOutcome;
import io.brook.broker.groups.GroupManager.ResetTo;
import io.brook.broker.groups.GroupMode;
import io.brook.broker.groups.JoinRequest;
import io.brook.broker.groups.JoinResult;
import io.brook.broker.groups.TopicPartition;
import io.brook.broker.security.Caller;
import io.brook.protocol.v1.AlterGroupConfigRequest;
import io.brook.protocol.v1.AlterGroupConfigResponse;
import io.brook.protocol.v1.Boundary;
import io.brook.protocol.v1.CommitOffsetsRequest;
import io.brook.protocol.v1.CommitOffsetsResponse;
import io.brook.protocol.v1.CommitResult;
import io.brook.protocol.v1.CreateGroupRequest;
import io.brook.protocol.v1.CreateGroupResponse;
import io.brook.protocol.v1.DeleteGroupRequest;
import io.brook.protocol.v1.DeleteGroupResponse;
import io.brook.protocol.v1.DescribeGroupRequest;
import io.brook.protocol.v1.DescribeGroupResponse;
import io.brook.protocol.v1.FetchCommittedOffsetsRequest;
import io.brook.protocol.v1.FetchCommittedOffsetsResponse;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.GroupSummary;
import io.brook.protocol.v1.HeartbeatRequest;
import io.brook.protocol.v1.HeartbeatResponse;
import io.brook.protocol.v1.JoinGroupRequest;
import io.brook.protocol.v1.JoinGroupResponse;
import io.brook.protocol.v1.LeaveGroupRequest;
import io.brook.protocol.v1.LeaveGroupResponse;
import io.brook.protocol.v1.ListGroupsRequest;
import io.brook.protocol.v1.ListGroupsResponse;
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
import java.util.function.Function;

/**
 * brook.v1.GroupService, the gRPC side of {@link GroupService}: offset-mode membership and commits,
 * and the admin calls of both modes. JoinGroup and a waiting Heartbeat answer later, without
 * holding a thread meanwhile.
 */
public final class GroupGrpcService extends GroupServiceGrpc.GroupServiceImplBase {
  private final GroupService groups;

  public GroupGrpcService(GroupService groups) {
    this.groups = groups;
  }

  @Override
  public void joinGroup(JoinGroupRequest request, StreamObserver<JoinGroupResponse> out) {
    ParkedCall<JoinResult> joined;
    try {
      joined = groups.join(request.getGroup(), new JoinRequest(request.getMemberId(), request.getClientId(),
          ClientAddress.current(), request.getTopicsList(), request.getSessionTimeoutMs(),
          request.getRebalanceTimeoutMs(), Caller.principal(), request.getInstanceId(), request.getTopicPattern(),
          request.getCooperative(), GroupMapper.owned(request.getOwnedList())),
          Caller.consumableTopics());
    } catch (RuntimeException e) {
      out.onError(Errors.toStatus(e));
      return;
    }
    if (out instanceof ServerCallStreamObserver<JoinGroupResponse> call) {
      call.setOnCancelHandler(joined.cancel());
    }
    answerWhenDone(joined.answer(), out, r -> {
      JoinGroupResponse.Builder b = JoinGroupResponse.newBuilder().setMemberId(r.memberId())
          .setGeneration(r.generation()).setHeartbeatIntervalMs(r.heartbeatIntervalMs())
          .addAllUnknownTopics(r.unknownTopics()).addAllTopics(r.topics());
      GroupMapper.toTopicPartitions(r.assignment()).forEach(b::addAssignment);
      return b.build();
    });
  }

  /** Answers at once, or (max_wait_ms) when a rebalance starts or the wait ends, without holding a thread. */
  @Override
  public void heartbeat(HeartbeatRequest request, StreamObserver<HeartbeatResponse> out) {
    ParkedCall<Boolean> rejoin;
    try {
      rejoin = groups.heartbeat(request.getGroup(), request.getMemberId(), request.getGeneration(),
          request.getMaxWaitMs(), Caller.principal());
    } catch (RuntimeException e) {
      out.onError(Errors.toStatus(e));
      return;
    }
    if (!rejoin.answer().isDone() && out instanceof ServerCallStreamObserver<HeartbeatResponse> call) {
      call.setOnCancelHandler(rejoin.cancel());
    }
    answerWhenDone(rejoin.answer(), out, r -> HeartbeatResponse.newBuilder().setRejoin(r).build());
  }

  /** Answers a parked call once its future completes. */
  private static <T, R> void answerWhenDone(CompletableFuture<T> answer, StreamObserver<R> out, Function<T, R> map) {
    answer.whenComplete((r, e) -> {
      try {
        if (e != null) {
          out.onError(Errors.toStatus(e instanceof CompletionException ? e.getCause() : e));
          return;
        }
        out.onNext(map.apply(r));
        out.onCompleted();
      } catch (RuntimeException gone) {
        // The caller went away meanwhile (cancelled): nobody to answer.
      }
    });
  }

  @Override
  public void leaveGroup(LeaveGroupRequest request, StreamObserver<LeaveGroupResponse> out) {
    Unary.answer(out, () -> {
      groups.leave(request.getGroup(), request.getMemberId(), Caller.principal());
      return LeaveGroupResponse.getDefaultInstance();
    });
  }

  @Override
  public void commitOffsets(CommitOffsetsRequest request, StreamObserver<CommitOffsetsResponse> out) {
    Unary.answer(out, () -> {
      List<CommitRequest> offsets = new ArrayList<>();
      for (OffsetCommit c : request.getOffsetsList()) {
        offsets.add(new CommitRequest(new TopicPartition(c.getTopic(), c.getPartition()), c.getOffset(),
            c.getMetadata()));
      }
      CommitOffsetsResponse.Builder b = CommitOffsetsResponse.newBuilder();
      for (CommitOutcome o : groups.commit(request.getGroup(), request.getMemberId(), request.getGeneration(),
          offsets, Caller.principal())) {
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
      List<OffsetQuery> queries = new ArrayList<>();
      for (TopicPartitions tps : request.getPartitionsList()) {
        queries.add(new OffsetQuery(tps.getTopic(), tps.getPartitionsList()));
      }
      // Only topics the caller may see (a topic it names needs that permission: MethodRules).
      FetchCommittedOffsetsResponse.Builder b = FetchCommittedOffsetsResponse.newBuilder();
      for (Map.Entry<TopicPartition, CommittedOffset> e : groups.committed(request.getGroup(), queries,
          Caller.visibleTopics())) {
        b.addOffsets(GroupMapper.committedOffset(e.getKey(), e.getValue()));
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
      return CreateGroupResponse.newBuilder().setGroup(GroupMapper.describe(groups.create(request.getGroup(), mode,
          request.getConfigMap(), Caller.visibleTopics()))).build();
    });
  }

  @Override
  public void alterGroupConfig(AlterGroupConfigRequest request, StreamObserver<AlterGroupConfigResponse> out) {
    Unary.answer(out, () -> AlterGroupConfigResponse.newBuilder().setGroup(GroupMapper.describe(groups.alterConfig(
        request.getGroup(), request.getSetMap(), request.getRemoveList(), Caller.visibleTopics()))).build());
  }

  @Override
  public void listGroups(ListGroupsRequest request, StreamObserver<ListGroupsResponse> out) {
    Unary.answer(out, () -> {
      ListGroupsResponse.Builder b = ListGroupsResponse.newBuilder();
      for (GroupListing g : groups.list()) {
        b.addGroups(GroupSummary.newBuilder().setName(g.name()).setMode(GroupMapper.mode(g.mode()))
            .setState(GroupMapper.state(g.state())).setMemberCount(g.memberCount()).setType(g.type()));
      }
      return b.build();
    });
  }

  @Override
  public void describeGroup(DescribeGroupRequest request, StreamObserver<DescribeGroupResponse> out) {
    Unary.answer(out, () -> DescribeGroupResponse.newBuilder()
        .setGroup(GroupMapper.describe(groups.describe(request.getGroup(), Caller.visibleTopics()))).build());
  }

  @Override
  public void resetGroupOffsets(ResetGroupOffsetsRequest request, StreamObserver<ResetGroupOffsetsResponse> out) {
    Unary.answer(out, () -> {
      if (!request.hasPosition()) {
        throw Errors.invalid("a reset needs a position: an offset, a timestamp, EARLIEST or LATEST");
      }
      ResetTo to = resetTo(request.getPosition());
      Map<String, List<Integer>> partitions = new LinkedHashMap<>();
      for (TopicPartitions tps : request.getPartitionsList()) {
        partitions.computeIfAbsent(tps.getTopic(), k -> new ArrayList<>()).addAll(tps.getPartitionsList());
      }
      ResetGroupOffsetsResponse.Builder b = ResetGroupOffsetsResponse.newBuilder();
      for (ResetOutcome o : groups.reset(request.getGroup(), partitions, to, request.getDryRun(),
          Caller.resettableTopics())) {
        io.brook.protocol.v1.CommittedOffset.Builder c = io.brook.protocol.v1.CommittedOffset.newBuilder()
            .setTopic(o.tp().topic()).setPartition(o.tp().partition());
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

  private static ResetTo resetTo(Position pos) {
    return switch (pos.getKindCase()) {
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
  }

  @Override
  public void deleteGroup(DeleteGroupRequest request, StreamObserver<DeleteGroupResponse> out) {
    Unary.answer(out, () -> {
      groups.delete(request.getGroup());
      return DeleteGroupResponse.getDefaultInstance();
    });
  }
}
