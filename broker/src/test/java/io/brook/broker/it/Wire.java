package io.brook.broker.it;

import com.google.protobuf.ByteString;
import com.google.rpc.ErrorInfo;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.CreateTopicRequest;
import io.brook.protocol.v1.FetchPartition;
import io.brook.protocol.v1.FetchRequest;
import io.brook.protocol.v1.FetchServiceGrpc;
import io.brook.protocol.v1.PartitionRecords;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceResponse;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.Record;
import io.brook.protocol.v1.TopicDescription;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.Metadata;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import io.grpc.protobuf.StatusProto;
import java.util.ArrayList;
import java.util.List;

/** Small helpers over the generated stubs, so tests read as what they check. */
final class Wire {
  final AdminServiceGrpc.AdminServiceBlockingStub admin;
  final ProduceServiceGrpc.ProduceServiceBlockingStub produce;
  final FetchServiceGrpc.FetchServiceBlockingStub fetch;

  Wire(Channel channel) {
    admin = AdminServiceGrpc.newBlockingStub(channel);
    produce = ProduceServiceGrpc.newBlockingStub(channel);
    fetch = FetchServiceGrpc.newBlockingStub(channel);
  }

  TopicDescription create(String topic, int partitions) {
    return admin.createTopic(CreateTopicRequest.newBuilder().setName(topic).setPartitions(partitions).build())
        .getTopic();
  }

  static Record value(String v) {
    return Record.newBuilder().setValue(ByteString.copyFromUtf8(v)).build();
  }

  static Record keyed(String k, String v) {
    return Record.newBuilder().setKey(ByteString.copyFromUtf8(k)).setValue(ByteString.copyFromUtf8(v)).build();
  }

  ProduceResponse produce(String topic, int partition, List<Record> records) {
    return produce.produce(ProduceRequest.newBuilder()
        .addBatches(ProduceBatch.newBuilder().setTopic(topic).setPartition(partition).addAllRecords(records))
        .build());
  }

  ProduceResponse produceValues(String topic, int partition, int count, String prefix) {
    List<Record> records = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      records.add(value(prefix + i));
    }
    return produce(topic, partition, records);
  }

  PartitionRecords fetchOne(String topic, int partition, long offset, int maxRecords, int maxBytes) {
    return fetch.fetch(FetchRequest.newBuilder()
        .addPartitions(FetchPartition.newBuilder().setTopic(topic).setPartition(partition).setOffset(offset))
        .setMaxRecords(maxRecords).setMaxBytes(maxBytes).build()).getPartitions(0);
  }

  /** Every record of a partition from offset 0, in order. */
  List<Record> readAll(String topic, int partition) {
    List<Record> all = new ArrayList<>();
    long next = 0;
    while (true) {
      PartitionRecords pr = fetchOne(topic, partition, next, 10_000, 4 << 20 - 1);
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

  /** The channel with {@code authorization: Bearer <token>} on every call. */
  static Channel withToken(Channel channel, String token) {
    Metadata headers = new Metadata();
    headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
    return ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers));
  }

  static String reason(StatusRuntimeException e) {
    com.google.rpc.Status s = StatusProto.fromThrowable(e);
    if (s == null) {
      return "";
    }
    for (com.google.protobuf.Any any : s.getDetailsList()) {
      if (any.is(ErrorInfo.class)) {
        try {
          return any.unpack(ErrorInfo.class).getReason();
        } catch (com.google.protobuf.InvalidProtocolBufferException ex) {
          throw new AssertionError(ex);
        }
      }
    }
    return "";
  }
}
