package io.brook.broker.api;

import io.brook.broker.core.TopicAdmin;
import io.brook.broker.core.TopicInfo;
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

/** brook.v1.AdminService: the gRPC edge of the core's {@link TopicAdmin}. */
public final class AdminGrpcService extends AdminServiceGrpc.AdminServiceImplBase {
  private final TopicAdmin admin;

  public AdminGrpcService(TopicAdmin admin) {
    this.admin = admin;
  }

  @Override
  public void createTopic(CreateTopicRequest request, StreamObserver<CreateTopicResponse> out) {
    Unary.answer(out, () -> CreateTopicResponse.newBuilder()
        .setTopic(toWire(admin.create(request.getName(), request.getPartitions(), request.getConfigMap()))).build());
  }

  @Override
  public void listTopics(ListTopicsRequest request, StreamObserver<ListTopicsResponse> out) {
    Unary.answer(out, () -> {
      ListTopicsResponse.Builder b = ListTopicsResponse.newBuilder();
      admin.list().forEach(t -> b.addTopics(toWire(t)));
      return b.build();
    });
  }

  @Override
  public void describeTopic(DescribeTopicRequest request, StreamObserver<DescribeTopicResponse> out) {
    Unary.answer(out, () -> DescribeTopicResponse.newBuilder().setTopic(toWire(admin.describe(request.getName())))
        .build());
  }

  @Override
  public void alterTopicConfig(AlterTopicConfigRequest request, StreamObserver<AlterTopicConfigResponse> out) {
    Unary.answer(out, () -> AlterTopicConfigResponse.newBuilder()
        .setTopic(toWire(admin.alterConfig(request.getName(), request.getSetMap(), request.getRemoveList()))).build());
  }

  @Override
  public void createPartitions(CreatePartitionsRequest request, StreamObserver<CreatePartitionsResponse> out) {
    Unary.answer(out, () -> CreatePartitionsResponse.newBuilder()
        .setTopic(toWire(admin.createPartitions(request.getName(), request.getTotalPartitions()))).build());
  }

  @Override
  public void deleteTopic(DeleteTopicRequest request, StreamObserver<DeleteTopicResponse> out) {
    Unary.answer(out, () -> {
      admin.delete(request.getName());
      return DeleteTopicResponse.getDefaultInstance();
    });
  }

  private static TopicDescription toWire(TopicInfo t) {
    TopicDescription.Builder b = TopicDescription.newBuilder()
        .setName(t.name())
        .setTopicId(t.id().toString())
        .putAllConfig(t.config())
        .setCreatedAtMs(t.createdAtMs());
    for (TopicInfo.PartitionInfo p : t.partitions()) {
      b.addPartitions(PartitionDescription.newBuilder()
          .setPartition(p.partition())
          .setLogStartOffset(p.logStartOffset())
          .setEndOffset(p.endOffset())
          .setSizeBytes(p.sizeBytes())
          .setSegmentRoll(p.segmentRoll())
          .setSegmentCount(p.segmentCount())
          .setForceCount(p.forceCount())
          .setProducerCount(p.producerCount()));
    }
    return b.build();
  }
}
