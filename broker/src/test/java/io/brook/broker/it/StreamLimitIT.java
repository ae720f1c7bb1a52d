package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.protocol.v1.AckServiceGrpc;
import io.brook.protocol.v1.DescribeGroupRequest;
import io.brook.protocol.v1.GroupDescription;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.ReceiveRequest;
import io.brook.protocol.v1.ReceiveResponse;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client that opens thousands of streams on one connection meets grpc.max.concurrent.streams (the
 * default, 1000): beyond it streams wait (grpc-java's client) or are refused (a client that ignores
 * the limit), the broker with a small heap stays up and serves others, and it frees the streams
 * when the client goes.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class StreamLimitIT {
  private static final int LIMIT = 1000; // grpc.max.concurrent.streams' default
  @TempDir static Path dir;
  static BrokerProcess broker;
  static Wire wire;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"), Map.of(), List.of("-Xmx256m"));
    wire = new Wire(broker.channel());
    wire.create("crowd", 2);
  }

  @AfterAll
  static void stop() throws Exception {
    assertThat(broker.currentStartLog()).doesNotContain("OutOfMemoryError");
    broker.close();
  }

  /**
   * 5000 Receive streams on one channel: exactly the first 1000 are joined (each answers its member
   * id), the rest wait in the client; the broker answers others meanwhile, and when the client's
   * connection goes every member is gone from the group.
   */
  @Test
  void fiveThousandStreamsOnOneConnectionGetTheLimitAndAreFreedWhenTheClientGoes() throws Exception {
    ManagedChannel crowded = NettyChannelBuilder.forAddress("127.0.0.1", broker.port()).usePlaintext().build();
    AtomicInteger joined = new AtomicInteger();
    AtomicInteger ended = new AtomicInteger();
    try {
      AckServiceGrpc.AckServiceStub ack = AckServiceGrpc.newStub(crowded);
      for (int i = 0; i < 5000; i++) {
        StreamObserver<ReceiveRequest> requests = ack.receive(new StreamObserver<>() {
          @Override
          public void onNext(ReceiveResponse r) {
            if (!r.getMemberId().isEmpty()) {
              joined.incrementAndGet();
            }
          }

          @Override
          public void onError(Throwable t) {
            ended.incrementAndGet();
          }

          @Override
          public void onCompleted() {
            ended.incrementAndGet();
          }
        });
        requests.onNext(ReceiveRequest.newBuilder().setGroup("crowd-g").addTopics("crowd").build());
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
      while (joined.get() < LIMIT && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      Thread.sleep(1000); // more would have joined by now if the limit did not hold
      assertThat(joined.get()).as("streams the broker started on one connection").isEqualTo(LIMIT);
      assertThat(ended.get()).as("streams ended").isZero();

      // The broker serves other connections meanwhile.
      assertThat(HealthGrpc.newBlockingStub(broker.channel()).check(HealthCheckRequest.getDefaultInstance())
          .getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
      assertThat(members()).isEqualTo(LIMIT);
      long offset = wire.produceValues("crowd", 0, 1, "during").getResults(0).getBaseOffset();
      assertThat(wire.fetchOne("crowd", 0, offset, 1, 1000).getRecords(0).getValue().toStringUtf8())
          .isEqualTo("during0");
    } finally {
      crowded.shutdownNow();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (members() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertThat(members()).as("members left once the client's connection closed").isZero();
  }

  /**
   * A client that ignores the advertised limit and opens 1500 streams at once: the broker refuses
   * the 500 over the limit with RST_STREAM(REFUSED_STREAM), keeps the connection and stays up.
   */
  @Test
  void streamsBeyondTheLimitAreRefusedWhenAClientIgnoresIt() throws Exception {
    try (RawHttp2Client raw = new RawHttp2Client(broker.port())) {
      raw.openStreams("/brook.v1.FetchService/Tail", LIMIT + 500);
      RawHttp2Client.Answers answers = raw.read(30_000, 500);
      assertThat(answers.maxConcurrentStreams()).as("SETTINGS_MAX_CONCURRENT_STREAMS advertised").isEqualTo(LIMIT);
      assertThat(answers.refused()).as("streams refused").isEqualTo(500);
      assertThat(answers.otherResets()).as("other resets").isZero();
      assertThat(answers.goAway()).as("connection closed by the broker").isFalse();
      RawHttp2Client.Answers more = raw.read(1000, 1);
      assertThat(more.refused() + more.otherResets()).as("streams within the limit stay open").isZero();
    }
    assertThat(broker.isAlive()).isTrue();
    assertThat(wire.produceValues("crowd", 1, 1, "after").getResults(0).getErrorMessage()).isEmpty();
  }

  private static int members() {
    GroupDescription g = GroupServiceGrpc.newBlockingStub(broker.channel())
        .describeGroup(DescribeGroupRequest.newBuilder().setGroup("crowd-g").build()).getGroup();
    return g.getMembersCount();
  }
}
