package io.brook.broker.api;

import io.brook.broker.disk.DiskGuard;
import io.brook.broker.disk.DiskWrite;
import io.brook.broker.topics.Partition;
import io.brook.broker.topics.Topic;
import io.brook.broker.topics.TopicManager;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.AlterTopicConfigRequest;
import io.brook.protocol.v1.AlterTopicConfigResponse;
import io.brook.protocol.v1.CreatePartitionsRequest;
import io.brook.protocol.v1.CreatePartitionsResponse;
import io.brook.protocol.v1.CreateTopicRequest;
import io.brook.protocol.v1.CreateTopicResponse;
import io.brook.protocol.v1.DeleteTopicRequest;
import io.brook.protocol.v1.DeleteTopicResponse;
import io.brook.protocol.v1.DescribeTopicRequest;
import io.brook.protocol.v1.DescribeTopicResponse;
import io.brook.protocol.v1.ListTopicsRequest;
import io.brook.protocol.v1.ListTopicsResponse;
import io.brook.protocol.v1.PartitionDescription;
import io.brook.protocol.v1.TopicDescription;
import io.grpc.stub.StreamObserver;

/** brook.v1.AdminService: topic lifecycle. Control plane: plain and synchronous. */
public final class AdminGrpcService extends AdminServiceGrpc.AdminServiceImplBase {
  private final TopicManager topics;
  private final DiskGuard disk;

  public AdminGrpcService(TopicManager topics, DiskGuard disk) {
    this.topics = topics;
    this.disk = disk;
  }

  @Override
  public void createTopic(CreateTopicRequest request, StreamObserver<CreateTopicResponse> out) {
    Unary.answer(out, () -> {
      if (request.getPartitions() < 0) {
        throw Errors.invalid("partitions must be >= 0 (0: the default), got " + request.getPartitions());
      }
      disk.check(DiskWrite.TOPIC_CREATE); // new partitions are new memory-mapped files, there only to take data
      Topic t = topics.create(request.getName(), request.getPartitions(), request.getConfigMap());
      return CreateTopicResponse.newBuilder().setTopic(describe(t)).build();
    });
  }

  @Override
  public void listTopics(ListTopicsRequest request, StreamObserver<ListTopicsResponse> out) {
    Unary.answer(out, () -> {
      ListTopicsResponse.Builder b = ListTopicsResponse.newBuilder();
      topics.list().forEach(t -> b.addTopics(describe(t)));
      return b.build();
    });
  }

  @Override
  public void describeTopic(DescribeTopicRequest request, StreamObserver<DescribeTopicResponse> out) {
    Unary.answer(out, () -> DescribeTopicResponse.newBuilder().setTopic(describe(topics.get(request.getName()))).build());
  }

  @Override
  public void alterTopicConfig(AlterTopicConfigRequest request, StreamObserver<AlterTopicConfigResponse> out) {
    Unary.answer(out, () -> {
      Topic t = topics.alterConfig(request.getName(), request.getSetMap(), request.getRemoveList());
      return AlterTopicConfigResponse.newBuilder().setTopic(describe(t)).build();
    });
  }

  @Override
  public void createPartitions(CreatePartitionsRequest request, StreamObserver<CreatePartitionsResponse> out) {
    Unary.answer(out, () -> {
      disk.check(DiskWrite.TOPIC_CREATE);
      Topic t = topics.addPartitions(request.getName(), request.getTotalPartitions());
      return CreatePartitionsResponse.newBuilder().setTopic(describe(t)).build();
    });
  }

  @Override
  public void deleteTopic(DeleteTopicRequest request, StreamObserver<DeleteTopicResponse> out) {
    Unary.answer(out, () -> {
      topics.delete(request.getName());
      return DeleteTopicResponse.getDefaultInstance();
    });
  }

  static TopicDescription describe(Topic t) {
    TopicDescription.Builder b = TopicDescription.newBuilder()
        .setName(t.name())
        .setTopicId(t.id().toString())
        .putAllConfig(t.config().effective())
        .setCreatedAtMs(t.createdAtMs());
    for (Partition p : t.partitions()) {
      b.addPartitions(PartitionDescription.newBuilder()
          .setPartition(p.index())
          .setLogStartOffset(p.startOffset())
          .setEndOffset(p.endOffset())
          .setSizeBytes(p.sizeBytes())
          .setSegmentRoll(p.segmentRoll().label())
          .setSegmentCount(p.segmentCount())
          .setForceCount(p.forceCount())
          .setProducerCount(p.producerCount()));
    }
    return b.build();
  }

}
