package io.brook.client.it;

import com.google.protobuf.ByteString;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.CreateTopicRequest;
import io.brook.protocol.v1.DescribeGroupRequest;
import io.brook.protocol.v1.ErrorCode;
import io.brook.protocol.v1.GroupDescription;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.Header;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceResult;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.Record;
import io.grpc.Channel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Test data over the raw generated stubs (the client's producer is written elsewhere): topics,
 * records, and the group as the broker describes it.
 */
final class TestTopics {
  private TestTopics() {}

  static void create(Channel channel, String topic, int partitions) {
    AdminServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
        .createTopic(CreateTopicRequest.newBuilder().setName(topic).setPartitions(partitions).build());
  }

  static Record value(String v) {
    return Record.newBuilder().setValue(ByteString.copyFromUtf8(v)).build();
  }

  static Record record(String key, String value, long timestampMs, String... headerPairs) {
    Record.Builder b = Record.newBuilder().setValue(ByteString.copyFromUtf8(value)).setTimestampMs(timestampMs);
    if (key != null) {
      b.setKey(ByteString.copyFromUtf8(key));
    }
    for (int i = 0; i < headerPairs.length; i += 2) {
      b.addHeaders(Header.newBuilder().setKey(headerPairs[i]).setValue(ByteString.copyFromUtf8(headerPairs[i + 1])));
    }
    return b.build();
  }

  /** Appends the records to one partition; answers the first offset. */
  static long produce(Channel channel, String topic, int partition, List<Record> records) {
    ProduceResult r = ProduceServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
        .produce(ProduceRequest.newBuilder().addBatches(ProduceBatch.newBuilder().setTopic(topic)
            .setPartition(partition).addAllRecords(records)).build()).getResults(0);
    if (r.getErrorCode() != ErrorCode.ERROR_CODE_UNSPECIFIED) {
      throw new AssertionError("produce to " + topic + "-" + partition + " failed: " + r.getErrorMessage());
    }
    return r.getBaseOffset();
  }

  /** Appends values prefix0 .. prefix(count-1) to one partition. */
  static List<String> produceValues(Channel channel, String topic, int partition, int count, String prefix) {
    List<Record> records = new ArrayList<>();
    List<String> values = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      records.add(value(prefix + i));
      values.add(prefix + i);
    }
    produce(channel, topic, partition, records);
    return values;
  }

  static GroupDescription describeGroup(Channel channel, String group) {
    return GroupServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
        .describeGroup(DescribeGroupRequest.newBuilder().setGroup(group).build()).getGroup();
  }

  /** Waits (bounded) until the condition holds; fails naming what it waited for. */
  static void await(String what, long seconds, java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("waited " + seconds + " s for: " + what);
      }
      Thread.sleep(20);
    }
  }
}
