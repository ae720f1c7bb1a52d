package io.brook.client.it;

import com.google.protobuf.ByteString;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.CreateTopicRequest;
import io.brook.protocol.v1.DescribeTopicRequest;
import io.brook.protocol.v1.FetchPartition;
import io.brook.protocol.v1.FetchRequest;
import io.brook.protocol.v1.FetchServiceGrpc;
import io.brook.protocol.v1.Header;
import io.brook.protocol.v1.PartitionRecords;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceResponse;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.Record;
import io.brook.protocol.v1.TopicDescription;
import io.grpc.Channel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Test data over the raw generated stubs (the client's producer is not used here: these tests are
 * about the ack consumer and the admin client).
 */
final class TestData {
  private final Channel channel;

  TestData(Channel channel) {
    this.channel = channel;
  }

  void createTopic(String name, int partitions) {
    createTopic(name, partitions, Map.of());
  }

  void createTopic(String name, int partitions, Map<String, String> config) {
    AdminServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
        .createTopic(CreateTopicRequest.newBuilder().setName(name).setPartitions(partitions).putAllConfig(config)
            .build());
  }

  TopicDescription describeTopic(String name) {
    return AdminServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
        .describeTopic(DescribeTopicRequest.newBuilder().setName(name).build()).getTopic();
  }

  static Record value(String value) {
    return Record.newBuilder().setValue(ByteString.copyFromUtf8(value)).build();
  }

  static Record keyed(String key, String value, String headerKey, String headerValue) {
    return Record.newBuilder().setKey(ByteString.copyFromUtf8(key)).setValue(ByteString.copyFromUtf8(value))
        .addHeaders(Header.newBuilder().setKey(headerKey).setValue(ByteString.copyFromUtf8(headerValue))).build();
  }

  /** Appends records to one partition, checking the answer. */
  void produce(String topic, int partition, List<Record> records) {
    ProduceResponse r = ProduceServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
        .produce(ProduceRequest.newBuilder().addBatches(ProduceBatch.newBuilder().setTopic(topic)
            .setPartition(partition).addAllRecords(records)).build());
    if (r.getResults(0).getErrorCodeValue() != 0) {
      throw new AssertionError("produce failed: " + r);
    }
  }

  /** count records with values prefix0..prefix(count-1) to one partition. */
  void produceValues(String topic, int partition, int count, String prefix) {
    List<Record> records = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      records.add(value(prefix + i));
    }
    produce(topic, partition, records);
  }

  /** Every record of a partition from offset 0. */
  List<Record> readAll(String topic, int partition) {
    List<Record> all = new ArrayList<>();
    long next = 0;
    for (int i = 0; i < 1000; i++) {
      PartitionRecords pr = FetchServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
          .fetch(FetchRequest.newBuilder().addPartitions(FetchPartition.newBuilder().setTopic(topic)
              .setPartition(partition).setOffset(next)).setMaxRecords(1000).build()).getPartitions(0);
      if (pr.getErrorCodeValue() != 0) {
        throw new AssertionError(pr.getErrorMessage());
      }
      if (pr.getRecordsCount() == 0) {
        return all;
      }
      all.addAll(pr.getRecordsList());
      next = pr.getNextOffset();
    }
    throw new AssertionError("too many records in " + topic + "-" + partition);
  }

  static Map<String, String> headers(Record r) {
    Map<String, String> m = new LinkedHashMap<>();
    r.getHeadersList().forEach(h -> m.put(h.getKey(), h.getValue().toStringUtf8()));
    return m;
  }
}
