package io.brook.client.it;

import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.CreateTopicRequest;
import io.brook.protocol.v1.DescribeTopicRequest;
import io.brook.protocol.v1.FetchPartition;
import io.brook.protocol.v1.FetchRequest;
import io.brook.protocol.v1.FetchServiceGrpc;
import io.brook.protocol.v1.PartitionRecords;
import io.brook.protocol.v1.Record;
import io.brook.protocol.v1.TopicDescription;
import io.grpc.Channel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The generated stubs, for setting up and checking what the client under test did (never the client itself). */
final class RawWire {
  private final AdminServiceGrpc.AdminServiceBlockingStub admin;
  private final FetchServiceGrpc.FetchServiceBlockingStub fetch;

  RawWire(Channel channel) {
    admin = AdminServiceGrpc.newBlockingStub(channel);
    fetch = FetchServiceGrpc.newBlockingStub(channel);
  }

  TopicDescription create(String topic, int partitions, Map<String, String> config) {
    return admin.createTopic(CreateTopicRequest.newBuilder().setName(topic).setPartitions(partitions)
        .putAllConfig(config).build()).getTopic();
  }

  TopicDescription describe(String topic) {
    return admin.describeTopic(DescribeTopicRequest.newBuilder().setName(topic).build()).getTopic();
  }

  /** Every record of a partition from its start, in offset order. */
  List<Record> readAll(String topic, int partition) {
    List<Record> all = new ArrayList<>();
    long next = 0;
    while (true) {
      PartitionRecords pr = fetch.fetch(FetchRequest.newBuilder()
          .addPartitions(FetchPartition.newBuilder().setTopic(topic).setPartition(partition).setOffset(next))
          .setMaxRecords(10_000).build()).getPartitions(0);
      if (pr.getErrorCodeValue() != 0) {
        throw new AssertionError(pr.getErrorMessage());
      }
      if (pr.getRecordsCount() == 0) {
        return all;
      }
      all.addAll(pr.getRecordsList());
      next = pr.getNextOffset();
    }
  }
}
