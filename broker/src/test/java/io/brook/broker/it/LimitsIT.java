package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.rpc.ErrorInfo;
import io.brook.protocol.v1.CreateGroupRequest;
import io.brook.protocol.v1.CreatePartitionsRequest;
import io.brook.protocol.v1.CreateTopicRequest;
import io.brook.protocol.v1.DeleteGroupRequest;
import io.brook.protocol.v1.DeleteTopicRequest;
import io.brook.protocol.v1.GroupMode;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.JoinGroupRequest;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.ProduceStreamRequest;
import io.brook.protocol.v1.ProduceStreamResponse;
import io.brook.protocol.v1.Record;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker's limits answer with RESOURCE_EXHAUSTED and a message naming the limit and its key:
 * max.topics, max.partitions (CreateTopic and CreatePartitions), max.groups (CreateGroup and groups
 * made on first use), and max.request.bytes for a 100 MB message, which a broker with a 256 MB heap
 * refuses without reading it whole.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LimitsIT {
  @TempDir static Path dir;
  static BrokerProcess broker;
  static Wire wire;
  static GroupServiceGrpc.GroupServiceBlockingStub groups;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"), Map.of(), List.of("-Xmx256m"),
        "--set", "max.topics=4", "--set", "max.partitions=10", "--set", "max.groups=2");
    wire = new Wire(broker.channel());
    groups = GroupServiceGrpc.newBlockingStub(broker.channel());
  }

  @AfterAll
  static void stop() throws Exception {
    assertThat(broker.isAlive()).isTrue();
    assertThat(broker.currentStartLog()).doesNotContain("OutOfMemoryError");
    broker.close();
  }

  /** RESOURCE_EXHAUSTED, reason LIMIT_EXCEEDED, the key in the message and in the ErrorInfo metadata. */
  static void assertLimit(ThrowingCallable call, String key, int value, String messagePart) {
    assertThatThrownBy(call).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(e.getStatus().getDescription()).contains(key).contains(messagePart);
      assertThat(errorInfo(e).getReason()).isEqualTo("LIMIT_EXCEEDED");
      assertThat(errorInfo(e).getMetadataMap()).containsEntry("limit", key)
          .containsEntry("value", String.valueOf(value));
    });
  }

  private static ErrorInfo errorInfo(StatusRuntimeException e) {
    try {
      for (com.google.protobuf.Any any : StatusProto.fromThrowable(e).getDetailsList()) {
        if (any.is(ErrorInfo.class)) {
          return any.unpack(ErrorInfo.class);
        }
      }
    } catch (com.google.protobuf.InvalidProtocolBufferException ex) {
      throw new AssertionError(ex);
    }
    throw new AssertionError("no ErrorInfo in " + e);
  }

  private static void deleteTopic(String name) {
    wire.admin.deleteTopic(DeleteTopicRequest.newBuilder().setName(name).build());
  }

  @Test
  void topicsAndPartitionsBeyondTheLimitsAreRefused() {
    wire.create("t1", 1);
    wire.create("t2", 1);
    wire.create("t3", 1);
    wire.create("t4", 1);
    assertLimit(() -> wire.create("t5", 1), "max.topics", 4, "the broker holds 4 topics");
    deleteTopic("t4");
    assertLimit(() -> wire.create("big", 8), "max.partitions", 10, "the broker holds 3 of at most 10 partitions");
    wire.create("big", 7);
    assertLimit(() -> wire.admin.createPartitions(CreatePartitionsRequest.newBuilder().setName("big")
        .setTotalPartitions(8).build()), "max.partitions", 10, "cannot add 1 partition for topic big");
    deleteTopic("t3");
    assertThat(wire.admin.createPartitions(CreatePartitionsRequest.newBuilder().setName("big")
        .setTotalPartitions(8).build()).getTopic().getPartitionsCount()).isEqualTo(8);
    // A count over the per-topic bound is a bad request whatever the broker holds.
    assertThatThrownBy(() -> wire.admin.createTopic(CreateTopicRequest.newBuilder().setName("huge")
        .setPartitions(10_001).build())).isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
    for (String t : List.of("t1", "t2", "big")) {
      deleteTopic(t);
    }
  }

  @Test
  void groupsBeyondTheLimitAreRefusedAlsoWhenMadeOnFirstUse() {
    wire.create("g-topic", 1);
    groups.createGroup(CreateGroupRequest.newBuilder().setGroup("g1").build());
    groups.createGroup(CreateGroupRequest.newBuilder().setGroup("g2").setMode(GroupMode.GROUP_MODE_ACK).build());
    assertLimit(() -> groups.createGroup(CreateGroupRequest.newBuilder().setGroup("g3").build()), "max.groups", 2,
        "cannot create group g3");
    assertLimit(() -> groups.joinGroup(JoinGroupRequest.newBuilder().setGroup("g4").addTopics("g-topic").build()),
        "max.groups", 2, "cannot create group g4");
    groups.deleteGroup(DeleteGroupRequest.newBuilder().setGroup("g1").build());
    assertThat(groups.createGroup(CreateGroupRequest.newBuilder().setGroup("g3").build()).getGroup().getName())
        .isEqualTo("g3");
    deleteTopic("g-topic");
  }

  /**
   * 100 MB is refused by gRPC's max inbound size (max.request.bytes, 8 MiB) from its length prefix:
   * a unary call gets RESOURCE_EXHAUSTED; a stream, whose response headers went out when it opened,
   * is reset (CANCELLED) and ends alone (see api.RequestGuard).
   */
  @Test
  void aHundredMegabyteMessageIsRefusedAndTheBrokerStaysUp() throws Exception {
    wire.create("m", 1);
    try {
      refuseHundredMegabytes();
    } finally {
      deleteTopic("m");
    }
  }

  private void refuseHundredMegabytes() throws Exception {
    Record huge = Record.newBuilder().setValue(ByteString.copyFrom(new byte[100 << 20])).build();
    ProduceRequest request = ProduceRequest.newBuilder()
        .addBatches(ProduceBatch.newBuilder().setTopic("m").setPartition(0).addRecords(huge)).build();
    assertThatThrownBy(() -> wire.produce.produce(request)).isInstanceOfSatisfying(StatusRuntimeException.class,
        e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
          assertThat(e.getStatus().getDescription()).contains("exceeds maximum size 8388608");
        });
    Recorder<ProduceStreamResponse> answers = new Recorder<>();
    var requests = ProduceServiceGrpc.newStub(broker.channel()).produceStream(answers);
    requests.onNext(ProduceStreamRequest.newBuilder().setCorrelationId(1).setRequest(request).build());
    requests.onCompleted();
    assertThat(answers.awaitEnd(30)).isTrue();
    assertThat(answers.next(1)).isInstanceOfSatisfying(StatusRuntimeException.class,
        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.CANCELLED));

    assertThat(broker.isAlive()).isTrue();
    long offset = wire.produceValues("m", 0, 1, "small").getResults(0).getBaseOffset();
    assertThat(wire.fetchOne("m", 0, offset, 10, 1000).getRecordsList())
        .extracting(r -> r.getValue().toStringUtf8()).containsExactly("small0");
  }
}
