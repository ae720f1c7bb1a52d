package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.protocol.v1.AckServiceGrpc;
import io.brook.protocol.v1.CreateGroupRequest;
import io.brook.protocol.v1.FetchPartition;
import io.brook.protocol.v1.FetchRequest;
import io.brook.protocol.v1.FetchResponse;
import io.brook.protocol.v1.FetchServiceGrpc;
import io.brook.protocol.v1.GroupMode;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.ProduceStreamRequest;
import io.brook.protocol.v1.ProduceStreamResponse;
import io.brook.protocol.v1.ReceiveResponse;
import io.brook.protocol.v1.TailPartition;
import io.brook.protocol.v1.TailRequest;
import io.brook.protocol.v1.TailResponse;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM with every kind of long call open: streams are told to reconnect (UNAVAILABLE, "shutting
 * down") and a waiting fetch is answered, so the broker exits 0 without waiting out its grace. The
 * grace here is ten minutes: a call the shutdown did not end would hold the broker past the test's
 * 60 s wait for the exit, and the exit code would not be 0.
 */
class ShutdownIT {
  @TempDir Path dir;

  @Test
  void sigtermEndsStreamsWithReconnectAndAnswersWaitingFetchesThenExitsZero() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"), "--set", "shutdown.grace.ms=600000")) {
      Wire wire = new Wire(broker.channel());
      wire.create("idle", 1);
      wire.create("busy", 1);

      Recorder<FetchResponse> fetch = new Recorder<>();
      FetchServiceGrpc.newStub(broker.channel()).fetch(FetchRequest.newBuilder().setMaxWaitMs(30_000)
          .addPartitions(FetchPartition.newBuilder().setTopic("idle").setPartition(0).setOffset(0)).build(), fetch);

      Recorder<TailResponse> tail = new Recorder<>();
      FetchServiceGrpc.newStub(broker.channel()).tail(TailRequest.newBuilder()
          .addPartitions(TailPartition.newBuilder().setTopic("busy").setPartition(0)).build(), tail);

      Recorder<ProduceStreamResponse> produced = new Recorder<>();
      StreamObserver<ProduceStreamRequest> produce = ProduceServiceGrpc.newStub(broker.channel())
          .produceStream(produced);
      produce.onNext(ProduceStreamRequest.newBuilder().setCorrelationId(1).setRequest(ProduceRequest.newBuilder()
          .addBatches(ProduceBatch.newBuilder().setTopic("busy").setPartition(0).addRecords(Wire.value("v"))))
          .build());
      assertThat(produced.next(30)).as("the produce stream's first answer").isInstanceOf(ProduceStreamResponse.class);
      assertThat(tail.next(30)).as("the tail stream sees the record").isInstanceOf(TailResponse.class);

      GroupServiceGrpc.newBlockingStub(broker.channel()).createGroup(CreateGroupRequest.newBuilder()
          .setGroup("workers").setMode(GroupMode.GROUP_MODE_ACK).putConfig("auto.offset.reset", "earliest").build());
      AckStream ack = new AckStream(broker.channel(), "workers", "c1", 10, "busy");
      assertThat(ack.next(30_000).value()).isEqualTo("v");

      // a Receive stream whose first request (the one that joins a group) has not come yet
      Recorder<ReceiveResponse> notJoined = new Recorder<>();
      AckServiceGrpc.newStub(broker.channel()).receive(notJoined);
      // Only once the broker holds all five (fetch, tail, produce, ack, not joined): a SIGTERM
      // before a call reached it would have it refused at the door instead of drained.
      awaitLongCalls(broker, 5);

      assertThat(broker.terminate()).as("exit code after SIGTERM, within the test's wait").isZero();

      assertThat(fetch.next(5)).as("the waiting fetch is answered, empty").isInstanceOf(FetchResponse.class)
          .satisfies(r -> assertThat(((FetchResponse) r).getPartitions(0).getRecordsCount()).isZero());
      assertThat(fetch.next(5)).isEqualTo("completed");
      assertToldToReconnect(end(tail), "tail stream");
      assertToldToReconnect(end(produced), "produce stream");
      assertToldToReconnect(end(ack.responses), "ack stream");
      assertToldToReconnect(end(notJoined), "receive stream before its first request");
      assertThat(broker.currentStartLog()).contains("Calls in flight finished in").contains("Brook stopped")
          .doesNotContain("are cancelled");
    }
  }

  private static void awaitLongCalls(BrokerProcess broker, int expected) throws Exception {
    double open = Double.NaN;
    for (long deadline = System.nanoTime() + 30_000_000_000L; System.nanoTime() < deadline; Thread.sleep(20)) {
      open = broker.metric("brook_grpc_long_calls");
      if (open == expected) {
        return;
      }
    }
    assertThat(open).as("brook_grpc_long_calls after 30 s").isEqualTo(expected);
  }

  /** How a stream ended (skipping its messages), or null when it did not end. */
  private static Object end(Recorder<?> stream) throws InterruptedException {
    Object event;
    do {
      event = stream.next(5);
    } while (event != null && !(event instanceof Throwable) && !"completed".equals(event));
    return event;
  }

  private static void assertToldToReconnect(Object end, String what) {
    assertThat(end).as(what + " ends with an error").isInstanceOf(Throwable.class);
    Status status = Status.fromThrowable((Throwable) end);
    assertThat(status.getCode()).as(what).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(status.getDescription()).as(what).contains("shutting down").contains("reconnect");
  }
}
