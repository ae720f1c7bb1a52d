package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.brook.protocol.v1.AckServiceGrpc;
import io.brook.protocol.v1.CreateGroupRequest;
import io.brook.protocol.v1.FetchServiceGrpc;
import io.brook.protocol.v1.GroupMode;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.Position;
import io.brook.protocol.v1.Record;
import io.brook.protocol.v1.ReceiveRequest;
import io.brook.protocol.v1.ReceiveResponse;
import io.brook.protocol.v1.TailPartition;
import io.brook.protocol.v1.TailRequest;
import io.brook.protocol.v1.TailResponse;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients that open many streams and read nothing (issue 22, item 5): what the broker holds for them
 * stays within their connection's share of the outbound memory, and other clients are served
 * meanwhile. The broker runs with 192 MiB of direct memory: the 300 tails of 3 MiB of one such
 * client alone (900 MiB) used to exhaust it, with OutOfMemoryErrors in the read threads.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class OutboundMemoryIT {
  private static final long CLIENT_SHARE = 32L << 20; // outbound.client.max.bytes' default
  private static final long ONE_MESSAGE = 3L << 20; // the answer cap: a share may be passed by one message
  @TempDir static Path dir;
  static BrokerProcess broker;
  static Wire wire;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"), Map.of(), List.of("-Xmx256m", "-XX:MaxDirectMemorySize=192m"));
    wire = new Wire(broker.channel());
    wire.create("big", 1);
    ByteString value = ByteString.copyFrom(new byte[100 << 10]);
    for (int i = 0; i < 30; i++) { // 150 MiB
      List<Record> records = new ArrayList<>();
      for (int j = 0; j < 50; j++) {
        records.add(Record.newBuilder().setValue(value).build());
      }
      wire.produce("big", 0, records);
    }
  }

  @AfterAll
  static void stop() throws Exception {
    String log = broker.currentStartLog();
    broker.close();
    assertThat(log).doesNotContain("OutOfMemoryError");
  }

  /** Starts a call whose answers the client never asks for: the broker can only queue them. */
  private static <Q, A> ClientCall<Q, A> unread(ManagedChannel ch, io.grpc.MethodDescriptor<Q, A> method, Q first,
      boolean halfClose) {
    ClientCall<Q, A> call = ch.newCall(method, CallOptions.DEFAULT);
    call.start(new ClientCall.Listener<>() { }, new Metadata());
    call.sendMessage(first);
    if (halfClose) {
      call.halfClose();
    }
    return call;
  }

  private static TailRequest tailFromStart(int maxBytes) {
    return TailRequest.newBuilder().setMaxBytes(maxBytes).addPartitions(TailPartition.newBuilder().setTopic("big")
        .setPartition(0).setStart(Position.newBuilder().setOffset(0))).build();
  }

  /** The broker's outbound bytes, less what the scrape that reads them reserved for itself. */
  private static double outboundBytes() throws Exception {
    return broker.metric("brook_outbound_bytes") - (1 << 20);
  }

  private static void awaitOutbound(java.util.function.DoublePredicate what) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!what.test(outboundBytes()) && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
  }

  @Test
  void threeHundredUnreadTailsHoldOnlyTheirConnectionsShareAndOthersAreServed() throws Exception {
    ManagedChannel hog = NettyChannelBuilder.forAddress("127.0.0.1", broker.port()).usePlaintext().build();
    ManagedChannel other = NettyChannelBuilder.forAddress("127.0.0.1", broker.port()).usePlaintext().build();
    try {
      List<ClientCall<TailRequest, TailResponse>> tails = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        tails.add(unread(hog, FetchServiceGrpc.getTailMethod(), tailFromStart(3 << 20), true));
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (broker.metric("brook_outbound_waiting_senders") < 250 && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertThat(broker.metric("brook_outbound_waiting_senders")).as("the hog's tails wait their turn")
          .isGreaterThanOrEqualTo(250);
      assertThat(outboundBytes()).as("what the broker holds for the client that reads nothing")
          .isLessThanOrEqualTo(CLIENT_SHARE + ONE_MESSAGE);

      // Another client tails and produces as if nothing were wrong.
      Iterator<TailResponse> tail = FetchServiceGrpc.newBlockingStub(other).withDeadlineAfter(30, TimeUnit.SECONDS)
          .tail(tailFromStart(1 << 20));
      assertThat(tail.next().getRecords().getRecordsCount()).isPositive();
      assertThat(new Wire(other).produceValues("big", 0, 3, "more").getResults(0).getErrorCodeValue()).isZero();

      tails.forEach(c -> c.cancel("done", null));
      awaitOutbound(b -> b <= 0);
      assertThat(outboundBytes()).as("everything given back once the hog gives up").isLessThanOrEqualTo(0);
    } finally {
      hog.shutdownNow();
      other.shutdownNow();
    }
  }

  @Test
  void ackMembersThatReadNothingHoldOnlyTheirShareAndAnotherMemberGetsTheRecords() throws Exception {
    GroupServiceGrpc.newBlockingStub(broker.channel()).createGroup(CreateGroupRequest.newBuilder().setGroup("slow")
        .setMode(GroupMode.GROUP_MODE_ACK).putConfig("auto.offset.reset", "earliest").build());
    ManagedChannel hog = NettyChannelBuilder.forAddress("127.0.0.1", broker.port()).usePlaintext().build();
    ManagedChannel other = NettyChannelBuilder.forAddress("127.0.0.1", broker.port()).usePlaintext().build();
    try {
      ReceiveRequest join = ReceiveRequest.newBuilder().setGroup("slow").addTopics("big").build();
      List<ClientCall<ReceiveRequest, ReceiveResponse>> members = new ArrayList<>();
      for (int i = 0; i < 50; i++) { // each may hold 100 MiB (the default flow control): 5 GB in all
        members.add(unread(hog, AckServiceGrpc.getReceiveMethod(), join, false));
      }
      Thread.sleep(2000);
      assertThat(outboundBytes()).as("what the broker holds for the members that read nothing")
          .isLessThanOrEqualTo(CLIENT_SHARE + ONE_MESSAGE);

      AckStream reader = new AckStream(other, "slow", "", 0, "big");
      assertThat(reader.next(30_000)).as("a member that reads gets records").isNotNull();
      reader.close();
      members.forEach(c -> c.cancel("done", null));
      awaitOutbound(b -> b <= 0);
      assertThat(outboundBytes()).isLessThanOrEqualTo(0);
    } finally {
      hog.shutdownNow();
      other.shutdownNow();
    }
  }

  @Test
  void idleAckMembersHoldNoOutboundMemoryAndEachStillGetsRecords() throws Exception {
    wire.create("quiet", 1);
    GroupServiceGrpc.newBlockingStub(broker.channel()).createGroup(CreateGroupRequest.newBuilder().setGroup("idle")
        .setMode(GroupMode.GROUP_MODE_ACK).putConfig("auto.offset.reset", "earliest").build());
    ManagedChannel one = NettyChannelBuilder.forAddress("127.0.0.1", broker.port()).usePlaintext().build();
    List<AckStream> members = new ArrayList<>();
    try {
      for (int i = 0; i < 20; i++) { // more than a connection's share holds of 3 MiB reservations
        AckStream m = new AckStream(one, "idle", "", 0, "quiet");
        m.awaitMemberId(30);
        members.add(m);
      }
      Thread.sleep(1000);
      assertThat(outboundBytes()).as("caught-up members reserve nothing").isLessThanOrEqualTo(0);

      wire.produceValues("quiet", 0, 200, "q");
      int got = 0;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (got < 200 && System.nanoTime() < deadline) {
        for (AckStream m : members) {
          List<AckStream.Got> taken = new ArrayList<>();
          m.records.drainTo(taken);
          if (!taken.isEmpty()) {
            got += taken.size();
            m.ack(taken);
          }
        }
        Thread.sleep(10);
      }
      assertThat(got).as("every record reached a member").isEqualTo(200);
    } finally {
      members.forEach(AckStream::close);
      one.shutdownNow();
    }
  }
}
