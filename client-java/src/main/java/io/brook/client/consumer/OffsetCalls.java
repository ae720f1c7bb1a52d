package io.brook.client.consumer;

import io.brook.client.TopicPartition;
import io.brook.client.admin.PartitionInfo;
import io.brook.client.internal.ErrorMapping;
import io.brook.client.internal.PartitionInfos;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.Boundary;
import io.brook.protocol.v1.CommitOffsetsRequest;
import io.brook.protocol.v1.CommitOffsetsResponse;
import io.brook.protocol.v1.CommitResult;
import io.brook.protocol.v1.CommittedOffset;
import io.brook.protocol.v1.DescribeTopicRequest;
import io.brook.protocol.v1.ErrorCode;
import io.brook.protocol.v1.FetchCommittedOffsetsRequest;
import io.brook.protocol.v1.FetchServiceGrpc;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.ListOffsetsRequest;
import io.brook.protocol.v1.OffsetAnswer;
import io.brook.protocol.v1.OffsetCommit;
import io.brook.protocol.v1.OffsetQuery;
import io.brook.protocol.v1.Position;
import io.brook.protocol.v1.TopicPartitions;
import io.grpc.Channel;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The offset calls, each one attempt with the request timeout: commit, read commits, resolve
 * earliest/latest; and describing a topic's partitions.
 */
final class OffsetCalls {
  private final ConsumerConfig config;
  private final GroupServiceGrpc.GroupServiceBlockingStub groups;
  private final GroupServiceGrpc.GroupServiceStub asyncGroups;
  private final FetchServiceGrpc.FetchServiceBlockingStub fetches;
  private final AdminServiceGrpc.AdminServiceBlockingStub admin;
  private final ConsumerMetrics metrics;

  OffsetCalls(ConsumerConfig config, Channel channel, ConsumerMetrics metrics) {
    this.config = config;
    this.admin = AdminServiceGrpc.newBlockingStub(channel);
    this.metrics = metrics;
    this.groups = GroupServiceGrpc.newBlockingStub(channel);
    this.asyncGroups = GroupServiceGrpc.newStub(channel);
    this.fetches = FetchServiceGrpc.newBlockingStub(channel);
  }

  /**
   * Stores these next-offsets-to-read as this member ({@code ""}/0: a commit from outside the
   * group). A partition the broker refused throws the typed exception of its error code, naming
   * every refused partition.
   */
  void commit(String memberId, int generation, Map<TopicPartition, OffsetAndMetadata> offsets) {
    CommitOffsetsRequest request = commitRequest(memberId, generation, offsets);
    long start = System.nanoTime();
    boolean failed = true;
    try {
      checkCommitted(groups.withDeadlineAfter(config.requestTimeoutMs(), TimeUnit.MILLISECONDS).commitOffsets(request));
      failed = false;
    } finally {
      metrics.committed(start, failed);
    }
  }

  /** The same commit without waiting: the observer hears the answer on a gRPC thread. */
  void commitAsync(String memberId, int generation, Map<TopicPartition, OffsetAndMetadata> offsets,
      StreamObserver<CommitOffsetsResponse> observer) {
    asyncGroups.withDeadlineAfter(config.requestTimeoutMs(), TimeUnit.MILLISECONDS)
        .commitOffsets(commitRequest(memberId, generation, offsets), new TimedCommit(observer, metrics));
  }

  private CommitOffsetsRequest commitRequest(String memberId, int generation,
      Map<TopicPartition, OffsetAndMetadata> offsets) {
    CommitOffsetsRequest.Builder request = CommitOffsetsRequest.newBuilder().setGroup(config.groupId())
        .setMemberId(memberId).setGeneration(generation);
    offsets.forEach((tp, commit) -> request.addOffsets(OffsetCommit.newBuilder().setTopic(tp.topic())
        .setPartition(tp.partition()).setOffset(commit.offset()).setMetadata(commit.metadata())));
    return request.build();
  }

  /** Throws the typed exception of the first refused partition, naming every refused one. */
  static void checkCommitted(CommitOffsetsResponse response) {
    List<String> refused = new ArrayList<>();
    ErrorCode first = null;
    for (CommitResult r : response.getResultsList()) {
      if (r.getErrorCode() != ErrorCode.ERROR_CODE_UNSPECIFIED) {
        first = first == null ? r.getErrorCode() : first;
        refused.add(r.getTopic() + "-" + r.getPartition() + ": " + r.getErrorMessage());
      }
    }
    if (first != null) {
      throw ErrorMapping.fromCode(first, "commit refused for " + String.join("; ", refused));
    }
  }

  /** The commit (next offset to read and metadata) of each partition that has one. */
  Map<TopicPartition, OffsetAndMetadata> committed(Collection<TopicPartition> partitions) {
    FetchCommittedOffsetsRequest.Builder request = FetchCommittedOffsetsRequest.newBuilder()
        .setGroup(config.groupId());
    request.addAllPartitions(byTopic(partitions));
    List<CommittedOffset> answers = groups.withDeadlineAfter(config.requestTimeoutMs(), TimeUnit.MILLISECONDS)
        .fetchCommittedOffsets(request.build()).getOffsetsList();
    Map<TopicPartition, OffsetAndMetadata> out = new LinkedHashMap<>();
    for (CommittedOffset c : answers) {
      TopicPartition tp = new TopicPartition(c.getTopic(), c.getPartition());
      if (!partitions.contains(tp)) {
        continue;
      }
      if (c.getErrorCode() != ErrorCode.ERROR_CODE_UNSPECIFIED) {
        throw ErrorMapping.fromCode(c.getErrorCode(), "cannot read the committed offset of " + tp + ": "
            + c.getErrorMessage());
      }
      if (c.hasOffset()) {
        out.put(tp, new OffsetAndMetadata(c.getOffset(), c.getMetadata()));
      }
    }
    return out;
  }

  /** The topic's partitions as the broker describes them now. */
  List<PartitionInfo> partitionsFor(String topic) {
    return PartitionInfos.of(admin.withDeadlineAfter(config.requestTimeoutMs(), TimeUnit.MILLISECONDS)
        .describeTopic(DescribeTopicRequest.newBuilder().setName(topic).build()).getTopic(), PartitionInfo::new);
  }

  /** The earliest or latest offset of each partition. */
  Map<TopicPartition, Long> boundaries(List<TopicPartition> partitions, OffsetResetStrategy which) {
    Position position = Position.newBuilder().setBoundary(which == OffsetResetStrategy.EARLIEST
        ? Boundary.BOUNDARY_EARLIEST : Boundary.BOUNDARY_LATEST).build();
    Map<TopicPartition, Position> queries = new LinkedHashMap<>();
    partitions.forEach(tp -> queries.put(tp, position));
    return resolve(queries, which.name().toLowerCase() + " offset");
  }

  /** Of each partition, the first offset whose timestamp is >= the one given, or the end offset when none is. */
  Map<TopicPartition, Long> forTimes(Map<TopicPartition, Long> timestamps) {
    Map<TopicPartition, Position> queries = new LinkedHashMap<>();
    timestamps.forEach((tp, ms) -> queries.put(tp, Position.newBuilder().setTimestampMs(ms).build()));
    return resolve(queries, "offset for a time");
  }

  private Map<TopicPartition, Long> resolve(Map<TopicPartition, Position> queries, String what) {
    List<TopicPartition> partitions = List.copyOf(queries.keySet());
    ListOffsetsRequest.Builder query = ListOffsetsRequest.newBuilder();
    queries.forEach((tp, position) -> query.addQueries(OffsetQuery.newBuilder().setTopic(tp.topic())
        .setPartition(tp.partition()).setPosition(position)));
    List<OffsetAnswer> answers = fetches.withDeadlineAfter(config.requestTimeoutMs(), TimeUnit.MILLISECONDS)
        .listOffsets(query.build()).getAnswersList();
    Map<TopicPartition, Long> out = new LinkedHashMap<>();
    for (int i = 0; i < partitions.size() && i < answers.size(); i++) {
      OffsetAnswer a = answers.get(i);
      if (a.getErrorCode() != ErrorCode.ERROR_CODE_UNSPECIFIED) {
        throw ErrorMapping.fromCode(a.getErrorCode(), "cannot find the " + what + " of " + partitions.get(i) + ": "
            + a.getErrorMessage());
      }
      out.put(partitions.get(i), a.getOffset());
    }
    return out;
  }

  /** Partitions grouped by topic as the wire carries them (FetchCommittedOffsets, JoinGroup's owned). */
  static List<TopicPartitions> byTopic(Collection<TopicPartition> tps) {
    Map<String, List<Integer>> m = new LinkedHashMap<>();
    for (TopicPartition tp : tps) {
      m.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition());
    }
    List<TopicPartitions> out = new ArrayList<>();
    m.forEach((t, ps) -> out.add(TopicPartitions.newBuilder().setTopic(t).addAllPartitions(ps).build()));
    return out;
  }
}
