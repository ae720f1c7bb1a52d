package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.brook.protocol.v1.DescribeTopicRequest;
import io.brook.protocol.v1.FetchServiceGrpc;
import io.brook.protocol.v1.Position;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.ProduceStreamRequest;
import io.brook.protocol.v1.ProduceStreamResponse;
import io.brook.protocol.v1.Record;
import io.brook.protocol.v1.TailPartition;
import io.brook.protocol.v1.TailRequest;
import io.brook.protocol.v1.TailResponse;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Flow control and keepalive: how the broker treats clients that read slowly or sit idle. */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class StreamPolicyIT {
  @TempDir static Path dir;
  static BrokerProcess broker;
  static Wire wire;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
    wire = new Wire(broker.channel());
  }

  @AfterAll
  static void stop() throws Exception {
    broker.close();
  }

  long endOffset(String topic) {
    return wire.admin.describeTopic(DescribeTopicRequest.newBuilder().setName(topic).build()).getTopic()
        .getPartitions(0).getEndOffset();
  }

  /**
   * A producer that sends but never reads its answers: the broker's answers fill the transport
   * window, the broker stops reading requests (at most produce.stream.max.inflight ahead), and the
   * appends stall instead of requests piling up in the broker's heap. Reading resumes everything.
   */
  @Test
  void aProducerThatStopsReadingAnswersStallsTheBrokerInsteadOfFillingItsHeap() throws Exception {
    wire.create("fc", 1);
    // The stall point depends on answer sizes (~29 B each: a 32 KiB window plus gRPC's 32 KiB
    // on-ready threshold hold ~2400), not on how many requests the client sends.
    int requests = 10_000;
    ManagedChannel small = NettyChannelBuilder.forAddress("127.0.0.1", broker.port()).usePlaintext()
        .flowControlWindow(32 * 1024).build();
    try {
      AtomicReference<ClientCallStreamObserver<ProduceStreamRequest>> call = new AtomicReference<>();
      AtomicInteger answered = new AtomicInteger();
      CountDownLatch completed = new CountDownLatch(1);
      ProduceServiceGrpc.newStub(small).produceStream(new ClientResponseObserver<ProduceStreamRequest, ProduceStreamResponse>() {
        @Override
        public void beforeStart(ClientCallStreamObserver<ProduceStreamRequest> requestStream) {
          requestStream.disableAutoRequestWithInitial(0); // read no answers for now
          call.set(requestStream);
        }

        @Override public void onNext(ProduceStreamResponse r) { answered.incrementAndGet(); }
        @Override public void onError(Throwable t) { completed.countDown(); }
        @Override public void onCompleted() { completed.countDown(); }
      });
      Record record = Record.newBuilder().setValue(ByteString.copyFrom(new byte[200])).build();
      for (int i = 0; i < requests; i++) {
        call.get().onNext(ProduceStreamRequest.newBuilder().setCorrelationId(i).setRequest(ProduceRequest.newBuilder()
            .addBatches(ProduceBatch.newBuilder().setTopic("fc").setPartition(0).addRecords(record))).build());
      }
      // Let the broker do all it will do while nobody reads; then it must be stuck well short.
      long stalled = -1;
      for (int i = 0; i < 50 && stalled != endOffset("fc"); i++) {
        stalled = endOffset("fc");
        Thread.sleep(200);
      }
      assertThat(stalled).as("appends stalled while answers are unread").isPositive().isLessThan(requests / 2);

      call.get().request(Integer.MAX_VALUE);
      call.get().onCompleted();
      assertThat(completed.await(60, TimeUnit.SECONDS)).isTrue();
      assertThat(answered.get()).isEqualTo(requests);
      assertThat(endOffset("fc")).isEqualTo(requests);
    } finally {
      small.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  /**
   * grpc-java and grpc-go clients ping every 10 s at the most often. A broker with the default
   * policy (5 min) would answer two such pings with GOAWAY "too_many_pings" and kill the stream.
   */
  @Test
  void clientKeepalivePingsEveryTenSecondsDoNotBreakALongStream() throws Exception {
    wire.create("idle", 1);
    ManagedChannel pinging = NettyChannelBuilder.forAddress("127.0.0.1", broker.port()).usePlaintext()
        .keepAliveTime(10, TimeUnit.SECONDS).keepAliveTimeout(5, TimeUnit.SECONDS).keepAliveWithoutCalls(true)
        .build();
    try {
      Recorder<TailResponse> events = new Recorder<>();
      FetchServiceGrpc.newStub(pinging).tail(TailRequest.newBuilder()
          .addPartitions(TailPartition.newBuilder().setTopic("idle").setPartition(0)
              .setStart(Position.newBuilder().setOffset(0)))
          .build(), events);
      // Four pings go out meanwhile; a server allows two "strikes" before it sends GOAWAY.
      Object early = events.next(45);
      assertThat(early).as("the idle stream must still be open").isNull();
      wire.produceValues("idle", 0, 1, "still-here");
      Object event = events.next(30);
      assertThat(event).isInstanceOf(TailResponse.class);
      assertThat(((TailResponse) event).getRecords().getRecords(0).getValue().toStringUtf8()).isEqualTo("still-here0");
    } finally {
      pinging.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
