package io.brook.broker.it.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.rpc.ErrorInfo;
import io.brook.broker.it.BrokerProcess;
import io.brook.broker.it.fuzz.RawCall.Ending;
import io.brook.broker.it.fuzz.RawCall.Outcome;
import io.brook.protocol.v1.AckServiceGrpc;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.CreateTopicRequest;
import io.brook.protocol.v1.DescribeGroupRequest;
import io.brook.protocol.v1.DescribeTopicRequest;
import io.brook.protocol.v1.Durability;
import io.brook.protocol.v1.FetchServiceGrpc;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.ProduceStreamRequest;
import io.brook.protocol.v1.ReceiveRequest;
import io.brook.protocol.v1.Record;
import com.google.protobuf.ByteString;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.protobuf.StatusProto;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The answers the fuzz test made the broker give, pinned down case by case: malformed protobuf and
 * wrong request counts are INVALID_ARGUMENT naming what was wrong (not UNKNOWN, INTERNAL or a bare
 * reset), a stream refused half-way is over for the broker too, a message echoing a huge input still
 * fits the client's header limit, and none of it leaves a stack trace in the log.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MalformedRequestIT {
  @TempDir static Path dir;
  static BrokerProcess broker;
  static ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
    AdminServiceGrpc.newBlockingStub(broker.channel())
        .createTopic(CreateTopicRequest.newBuilder().setName("t").build());
  }

  @AfterAll
  static void stop() throws Exception {
    timer.shutdownNow();
    assertThat(broker.currentStartLog().lines().filter(l -> l.startsWith("\tat "))).as("stack traces").isEmpty();
    broker.close();
  }

  private static Outcome call(MethodDescriptor<?, ?> typed, List<byte[]> messages) throws Exception {
    MethodDescriptor<byte[], byte[]> raw = RawCall.method(typed.getFullMethodName(), typed.getType());
    return RawCall.start(broker.channel(), raw, messages, Ending.HALF_CLOSE, 0, 10_000, timer)
        .get(15, TimeUnit.SECONDS);
  }

  private static void assertInvalid(Outcome o, String messagePart) {
    assertThat(o.status().getCode()).as(o.status().toString()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(o.status().getDescription()).contains(messagePart);
    ErrorInfo info = StatusProto.fromStatusAndTrailers(o.status(), o.trailers()).getDetailsList().stream()
        .filter(a -> a.is(ErrorInfo.class)).map(a -> {
          try {
            return a.unpack(ErrorInfo.class);
          } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            throw new AssertionError(e);
          }
        }).findFirst().orElseThrow();
    assertThat(info.getReason()).isEqualTo("INVALID_REQUEST");
  }

  @Test
  void bytesThatAreNotTheRequestTypeAreInvalidArgument() throws Exception {
    // 0x0b: a start-group tag for field 1 that is never closed.
    assertInvalid(call(AdminServiceGrpc.getCreateTopicMethod(), List.of(new byte[] {0x0b})),
        "request 1 is not a valid brook.v1.CreateTopicRequest");
    // A string field whose length says 4 GiB.
    assertInvalid(call(FetchServiceGrpc.getTailMethod(), List.of(new byte[] {0x0a, (byte) 0xff, (byte) 0xff,
        (byte) 0xff, (byte) 0xff, 0x0f})), "not a valid brook.v1.TailRequest");
  }

  @Test
  void unaryCallsNeedExactlyOneRequest() throws Exception {
    byte[] describe = DescribeTopicRequest.newBuilder().setName("t").build().toByteArray();
    assertInvalid(call(AdminServiceGrpc.getDescribeTopicMethod(), List.of(describe, describe)),
        "DescribeTopic takes exactly one request message, got a second one");
    assertInvalid(call(AdminServiceGrpc.getDescribeTopicMethod(), List.of()),
        "DescribeTopic takes exactly one request message, got none");
    assertInvalid(call(FetchServiceGrpc.getTailMethod(), List.of()), "Tail takes exactly one request message");
    assertThat(call(AdminServiceGrpc.getDescribeTopicMethod(), List.of(describe)).status().isOk()).isTrue();
  }

  /** Refused after it joined: the member leaves the group with the stream, as when a client cancels. */
  @Test
  void aStreamRefusedHalfWayEndsForTheBrokerToo() throws Exception {
    byte[] join = ReceiveRequest.newBuilder().setGroup("half").addTopics("t").build().toByteArray();
    Outcome o = call(AckServiceGrpc.getReceiveMethod(), List.of(join, new byte[] {0x0b}));
    assertInvalid(o, "request 2 is not a valid brook.v1.ReceiveRequest");
    assertThat(o.responses()).as("the member id came first").isEqualTo(1);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (members("half") > 0 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(members("half")).isZero();
  }

  private static int members(String group) {
    return GroupServiceGrpc.newBlockingStub(broker.channel())
        .describeGroup(DescribeGroupRequest.newBuilder().setGroup(group).build()).getGroup().getMembersCount();
  }

  /**
   * A stream whose answer is still on its way (a SYNCED produce waits for its force) when the next
   * message turns out larger than max.request.bytes: that stream ends, and only it. (gRPC answered
   * the size with trailers, the produce answer followed them, and Netty ended the client's whole
   * connection with GOAWAY, failing every other call on it.)
   */
  @Test
  void anOversizeMessageOnAStreamEndsThatStreamOnly() throws Exception {
    byte[] synced = ProduceStreamRequest.newBuilder().setRequest(ProduceRequest.newBuilder()
        .setDurability(Durability.DURABILITY_SYNCED).addBatches(ProduceBatch.newBuilder().setTopic("t")
            .setPartition(0).addRecords(Record.newBuilder().setValue(ByteString.copyFromUtf8("v"))))).build()
        .toByteArray();
    byte[] oversize = new byte[(8 << 20) + 1];
    MethodDescriptor<byte[], byte[]> raw = RawCall.method(ProduceServiceGrpc.getProduceStreamMethod()
        .getFullMethodName(), MethodDescriptor.MethodType.BIDI_STREAMING);
    List<CompletableFuture<Outcome>> streams = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      streams.add(RawCall.start(broker.channel(), raw, List.of(synced, oversize), Ending.HALF_CLOSE, 0, 10_000, timer));
    }
    for (CompletableFuture<Outcome> s : streams) {
      Status.Code code = s.get(15, TimeUnit.SECONDS).status().getCode();
      assertThat(code).isIn(Status.Code.RESOURCE_EXHAUSTED, Status.Code.CANCELLED);
    }
    assertThat(broker.currentStartLog()).doesNotContain("Transport failed");
  }

  /** A 5000-character config key comes back cut, within the 8 KiB a client takes in trailers. */
  @Test
  void aMessageEchoingAHugeInputStillReachesTheClient() throws Exception {
    byte[] create = CreateTopicRequest.newBuilder().setName("c").putConfig("\u4e00".repeat(5000), "1").build()
        .toByteArray();
    assertInvalid(call(AdminServiceGrpc.getCreateTopicMethod(), List.of(create)), "characters, cut)");
  }
}
