package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.brook.protocol.Partitioner;
import io.brook.protocol.v1.Boundary;
import io.brook.protocol.v1.ErrorCode;
import io.brook.protocol.v1.FetchPartition;
import io.brook.protocol.v1.FetchRequest;
import io.brook.protocol.v1.FetchResponse;
import io.brook.protocol.v1.FetchServiceGrpc;
import io.brook.protocol.v1.Header;
import io.brook.protocol.v1.ListOffsetsRequest;
import io.brook.protocol.v1.OffsetQuery;
import io.brook.protocol.v1.PartitionRecords;
import io.brook.protocol.v1.Position;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceResponse;
import io.brook.protocol.v1.ProduceResult;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.ProduceStreamRequest;
import io.brook.protocol.v1.ProduceStreamResponse;
import io.brook.protocol.v1.Record;
import io.brook.protocol.v1.TailPartition;
import io.brook.protocol.v1.TailRequest;
import io.brook.protocol.v1.TailResponse;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Produce, fetch, long poll, tail and list offsets against the real broker process. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ProduceFetchIT {
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

  @Test
  void healthIsServingAndReflectionListsTheServices() throws Exception {
    HealthCheckResponse health = HealthGrpc.newBlockingStub(broker.channel())
        .check(HealthCheckRequest.getDefaultInstance());
    assertThat(health.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);

    BlockingQueue<ServerReflectionResponse> answers = new LinkedBlockingQueue<>();
    StreamObserver<ServerReflectionRequest> requests = ServerReflectionGrpc.newStub(broker.channel())
        .serverReflectionInfo(new StreamObserver<>() {
          @Override public void onNext(ServerReflectionResponse r) { answers.add(r); }
          @Override public void onError(Throwable t) {}
          @Override public void onCompleted() {}
        });
    requests.onNext(ServerReflectionRequest.newBuilder().setListServices("").build());
    ServerReflectionResponse r = answers.poll(10, TimeUnit.SECONDS);
    requests.onCompleted();
    assertThat(r.getListServicesResponse().getServiceList()).extracting(ServiceResponse::getName)
        .contains("brook.v1.ProduceService", "brook.v1.FetchService", "brook.v1.AdminService",
            "grpc.health.v1.Health");
  }

  @Test
  void producedRecordsComeBackWithKeysHeadersTimestampsAndContiguousOffsets() {
    wire.create("roundtrip", 1);
    Record full = Record.newBuilder().setKey(ByteString.copyFromUtf8("k")).setValue(ByteString.copyFromUtf8("v1"))
        .addHeaders(Header.newBuilder().setKey("h").setValue(ByteString.copyFromUtf8("1")))
        .addHeaders(Header.newBuilder().setKey("h").setValue(ByteString.copyFromUtf8("2")))
        .setTimestampMs(1_700_000_000_000L).build();
    Record emptyKey = Record.newBuilder().setKey(ByteString.EMPTY).setValue(ByteString.copyFromUtf8("v2")).build();
    ProduceResponse first = wire.produce("roundtrip", 0, List.of(full, emptyKey, Wire.value("v3")));
    assertThat(first.getResults(0).getBaseOffset()).isZero();
    assertThat(first.getResults(0).getRecordCount()).isEqualTo(3);
    assertThat(wire.produceValues("roundtrip", 0, 2, "more").getResults(0).getBaseOffset()).isEqualTo(3);

    List<Record> all = wire.readAll("roundtrip", 0);
    assertThat(all).extracting(Record::getOffset).containsExactly(0L, 1L, 2L, 3L, 4L);
    assertThat(all.get(0).getKey().toStringUtf8()).isEqualTo("k");
    assertThat(all.get(0).getHeadersList()).extracting(h -> h.getValue().toStringUtf8()).containsExactly("1", "2");
    assertThat(all.get(0).getTimestampMs()).isEqualTo(1_700_000_000_000L);
    assertThat(all.get(1).hasKey()).isTrue();
    assertThat(all.get(1).getKey()).isEqualTo(ByteString.EMPTY);
    assertThat(all.get(2).hasKey()).as("no key stays no key").isFalse();
    assertThat(all.get(2).getTimestampMs()).as("broker time when unset").isEqualTo(first.getResults(0).getAppendTimeMs());
  }

  @Test
  void theBrokerPartitionsByKeyExactlyLikeKafkaAndKeepsKeylessBatchesTogether() {
    wire.create("spread", 5);
    ProduceBatch.Builder batch = ProduceBatch.newBuilder().setTopic("spread");
    for (int i = 0; i < 50; i++) {
      batch.addRecords(Wire.keyed("key-" + i, "v" + i));
    }
    batch.addRecords(Record.newBuilder().setKey(ByteString.EMPTY).setValue(ByteString.copyFromUtf8("empty-key")));
    for (int i = 0; i < 5; i++) {
      batch.addRecords(Wire.value("keyless-" + i));
    }
    ProduceResponse r = wire.produce.produce(ProduceRequest.newBuilder().addBatches(batch).build());
    int keylessPartition = -1;
    int covered = 0;
    for (ProduceResult result : r.getResultsList()) {
      assertThat(result.getErrorCode()).isEqualTo(ErrorCode.ERROR_CODE_UNSPECIFIED);
      covered += result.getRecordIndexesCount();
      assertThat(result.getRecordCount()).isEqualTo(result.getRecordIndexesCount());
      for (int index : result.getRecordIndexesList()) {
        Record rec = batch.getRecords(index);
        if (rec.hasKey()) {
          assertThat(result.getPartition()).as("record %d", index)
              .isEqualTo(Partitioner.partitionForKey(rec.getKey().toByteArray(), 5));
        } else if (keylessPartition < 0) {
          keylessPartition = result.getPartition();
        } else {
          assertThat(result.getPartition()).as("keyless records of one batch stay together").isEqualTo(keylessPartition);
        }
      }
    }
    assertThat(covered).isEqualTo(56);
  }

  @Test
  void fetchHonoursMaxRecordsAndMaxBytesButReturnsAtLeastOneRecord() {
    wire.create("limits", 1);
    wire.produceValues("limits", 0, 100, "value-");
    PartitionRecords some = wire.fetchOne("limits", 0, 10, 7, 1 << 20);
    assertThat(some.getRecordsList()).extracting(Record::getOffset).containsExactly(10L, 11L, 12L, 13L, 14L, 15L, 16L);
    assertThat(some.getNextOffset()).isEqualTo(17);
    assertThat(some.getEndOffset()).isEqualTo(100);
    assertThat(wire.fetchOne("limits", 0, 0, 1000, 1).getRecordsCount()).isEqualTo(1);
    assertThat(wire.fetchOne("limits", 0, 0, 1000, 40).getRecordsCount()).isBetween(4, 5);
    assertThat(wire.fetchOne("limits", 0, 100, 1000, 1000).getRecordsCount()).as("at the end").isZero();
  }

  @Test
  void offsetsOutsideTheLogAreAnErrorThatNamesTheValidRange() {
    wire.create("range", 1);
    wire.produceValues("range", 0, 3, "r");
    PartitionRecords beyond = wire.fetchOne("range", 0, 4, 10, 1000);
    assertThat(beyond.getErrorCode()).isEqualTo(ErrorCode.ERROR_CODE_OFFSET_OUT_OF_RANGE);
    assertThat(beyond.getErrorMessage()).contains("offset 4").contains("0 to 3");
    assertThat(wire.fetchOne("range", 0, -5, 10, 1000).getErrorCode())
        .isEqualTo(ErrorCode.ERROR_CODE_OFFSET_OUT_OF_RANGE);
    // One bad partition does not fail the others.
    FetchResponse mixed = wire.fetch.fetch(FetchRequest.newBuilder()
        .addPartitions(FetchPartition.newBuilder().setTopic("range").setPartition(0).setOffset(99))
        .addPartitions(FetchPartition.newBuilder().setTopic("range").setPartition(0).setOffset(1))
        .addPartitions(FetchPartition.newBuilder().setTopic("nope").setPartition(0).setOffset(0))
        .build());
    assertThat(mixed.getPartitions(0).getErrorCode()).isEqualTo(ErrorCode.ERROR_CODE_OFFSET_OUT_OF_RANGE);
    assertThat(mixed.getPartitions(1).getRecordsCount()).isEqualTo(2);
    assertThat(mixed.getPartitions(2).getErrorCode()).isEqualTo(ErrorCode.ERROR_CODE_UNKNOWN_TOPIC);
  }

  @Test
  void aLongPollIsAnsweredByTheNextAppendAndEmptyWhenTheWaitEnds() throws Exception {
    wire.create("poll", 2);
    FetchRequest waitForOne = FetchRequest.newBuilder()
        .addPartitions(FetchPartition.newBuilder().setTopic("poll").setPartition(0).setOffset(0))
        .addPartitions(FetchPartition.newBuilder().setTopic("poll").setPartition(1).setOffset(0))
        .setMaxWaitMs(60_000).build();
    CompletableFuture<FetchResponse> answer = CompletableFuture.supplyAsync(() -> wire.fetch.fetch(waitForOne));
    Thread.sleep(300);
    assertThat(answer).isNotDone();
    wire.produceValues("poll", 1, 1, "wake");
    FetchResponse r = answer.get(30, TimeUnit.SECONDS);
    assertThat(r.getPartitions(1).getRecords(0).getValue().toStringUtf8()).isEqualTo("wake0");

    FetchResponse empty = wire.fetch.fetch(FetchRequest.newBuilder()
        .addPartitions(FetchPartition.newBuilder().setTopic("poll").setPartition(0).setOffset(0))
        .setMaxWaitMs(200).build());
    assertThat(empty.getPartitions(0).getRecordsCount()).isZero();
    assertThat(empty.getPartitions(0).getErrorCode()).isEqualTo(ErrorCode.ERROR_CODE_UNSPECIFIED);
  }

  @Test
  void manyLongPollsWaitWithoutHoldingThreads() throws Exception {
    // 200 waiting fetches, far more than the broker's threads: if each held a thread the append
    // below could not even be served.
    wire.create("many-polls", 1);
    FetchServiceGrpc.FetchServiceFutureStub async = FetchServiceGrpc.newFutureStub(broker.channel());
    List<com.google.common.util.concurrent.ListenableFuture<FetchResponse>> polls = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      polls.add(async.fetch(FetchRequest.newBuilder()
          .addPartitions(FetchPartition.newBuilder().setTopic("many-polls").setPartition(0).setOffset(0))
          .setMaxWaitMs(60_000).build()));
    }
    Thread.sleep(300);
    wire.produceValues("many-polls", 0, 1, "all");
    for (var poll : polls) {
      assertThat(poll.get(30, TimeUnit.SECONDS).getPartitions(0).getRecordsCount()).isEqualTo(1);
    }
  }

  @Test
  void theProduceStreamAnswersPipelinedRequestsInOrder() throws Exception {
    wire.create("stream", 1);
    int requests = 500;
    Recorder<ProduceStreamResponse> recorder = new Recorder<>();
    StreamObserver<ProduceStreamRequest> stream = ProduceServiceGrpc.newStub(broker.channel()).produceStream(recorder);
    for (int i = 0; i < requests; i++) {
      stream.onNext(ProduceStreamRequest.newBuilder().setCorrelationId(i).setRequest(ProduceRequest.newBuilder()
          .addBatches(ProduceBatch.newBuilder().setTopic("stream").setPartition(0)
              .addRecords(Wire.value("a" + i)).addRecords(Wire.value("b" + i)))).build());
    }
    stream.onCompleted();
    assertThat(recorder.awaitEnd(60)).isTrue();
    List<ProduceStreamResponse> answers = recorder.messages();
    assertThat(answers).hasSize(requests);
    for (int i = 0; i < requests; i++) {
      assertThat(answers.get(i).getCorrelationId()).isEqualTo(i);
      assertThat(answers.get(i).getResponse().getResults(0).getBaseOffset()).isEqualTo(2L * i);
    }
    assertThat(wire.readAll("stream", 0)).hasSize(2 * requests);
  }

  @Test
  void listOffsetsResolvesEarliestLatestAndTimestamps() {
    wire.create("times", 1);
    for (long ts : new long[] {1000, 5000, 3000, 9000}) {
      wire.produce("times", 0, List.of(Record.newBuilder().setValue(ByteString.copyFromUtf8("t" + ts))
          .setTimestampMs(ts).build()));
    }
    var answers = wire.fetch.listOffsets(ListOffsetsRequest.newBuilder()
        .addQueries(query(Position.newBuilder().setBoundary(Boundary.BOUNDARY_EARLIEST).build()))
        .addQueries(query(Position.newBuilder().setBoundary(Boundary.BOUNDARY_LATEST).build()))
        .addQueries(query(Position.newBuilder().setTimestampMs(2000).build()))
        .addQueries(query(Position.newBuilder().setTimestampMs(4000).build()))
        .addQueries(query(Position.newBuilder().setTimestampMs(9001).build()))
        .build()).getAnswersList();
    assertThat(answers).extracting(a -> a.getOffset()).containsExactly(0L, 4L, 1L, 1L, 4L);
  }

  private static OffsetQuery query(Position p) {
    return OffsetQuery.newBuilder().setTopic("times").setPartition(0).setPosition(p).build();
  }

  @Test
  void aTailSendsWhatIsThereThenFollowsNewRecords() throws Exception {
    wire.create("tail", 2);
    wire.produceValues("tail", 0, 5, "old");
    Context.CancellableContext context = Context.current().withCancellation();
    try {
      Context previous = context.attach();
      try {
        Iterator<TailResponse> tail = FetchServiceGrpc.newBlockingStub(broker.channel()).tail(TailRequest.newBuilder()
            .addPartitions(TailPartition.newBuilder().setTopic("tail").setPartition(0)
                .setStart(Position.newBuilder().setOffset(2)))
            .addPartitions(TailPartition.newBuilder().setTopic("tail").setPartition(1)
                .setStart(Position.newBuilder().setBoundary(Boundary.BOUNDARY_EARLIEST)))
            .build());
        List<String> seen = new ArrayList<>();
        while (seen.size() < 3) {
          tail.next().getRecords().getRecordsList().forEach(r -> seen.add(r.getValue().toStringUtf8()));
        }
        assertThat(seen).containsExactly("old2", "old3", "old4");
        wire.produceValues("tail", 1, 2, "new");
        while (seen.size() < 5) {
          TailResponse r = tail.next();
          assertThat(r.getRecords().getPartition()).isEqualTo(1);
          r.getRecords().getRecordsList().forEach(x -> seen.add(x.getValue().toStringUtf8()));
        }
        assertThat(seen).endsWith("new0", "new1");
      } finally {
        context.detach(previous);
      }
    } finally {
      context.cancel(null);
    }
  }

  @Test
  void aTailFromAnOffsetOutOfRangeFailsWithOutOfRange() {
    wire.create("tail-range", 1);
    Iterator<TailResponse> tail = FetchServiceGrpc.newBlockingStub(broker.channel()).tail(TailRequest.newBuilder()
        .addPartitions(TailPartition.newBuilder().setTopic("tail-range").setPartition(0)
            .setStart(Position.newBuilder().setOffset(10)))
        .build());
    assertThatThrownBy(tail::hasNext)
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.OUT_OF_RANGE);
          assertThat(e.getStatus().getDescription()).contains("0 to 0");
          assertThat(Wire.reason(e)).isEqualTo("OFFSET_OUT_OF_RANGE");
        });
  }

  @Test
  void aCaughtUpTailEndsWithNotFoundWhenItsTopicIsDeleted() throws Exception {
    wire.create("doomed", 1);
    wire.produceValues("doomed", 0, 2, "d");
    Recorder<TailResponse> tail = new Recorder<>();
    FetchServiceGrpc.newStub(broker.channel()).tail(TailRequest.newBuilder()
        .addPartitions(TailPartition.newBuilder().setTopic("doomed").setPartition(0)
            .setStart(Position.newBuilder().setOffset(0)))
        .build(), tail);
    assertThat(tail.next(30)).isInstanceOf(TailResponse.class);
    Thread.sleep(200); // caught up: waiting on the partition
    wire.admin.deleteTopic(io.brook.protocol.v1.DeleteTopicRequest.newBuilder().setName("doomed").build());
    Object end = tail.next(30);
    assertThat(end).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
      assertThat(e.getStatus().getDescription()).contains("doomed").contains("deleted");
    });
  }

  @Test
  void maxBytesBoundsTheWholeAnswerNotEachPartition() {
    wire.create("budget", 2);
    Record large = Record.newBuilder().setValue(ByteString.copyFrom(new byte[600_000])).build();
    wire.produce("budget", 0, List.of(large));
    wire.produce("budget", 1, List.of(large));
    FetchResponse r = wire.fetch.fetch(FetchRequest.newBuilder()
        .addPartitions(FetchPartition.newBuilder().setTopic("budget").setPartition(0).setOffset(0))
        .addPartitions(FetchPartition.newBuilder().setTopic("budget").setPartition(1).setOffset(0))
        .setMaxBytes(1_000_000).build());
    assertThat(r.getPartitions(0).getRecordsCount()).as("the first record always comes").isEqualTo(1);
    assertThat(r.getPartitions(1).getRecordsCount()).as("a second would exceed max_bytes").isZero();
    assertThat(r.getPartitions(1).getNextOffset()).isZero();
  }

  @Test
  void aSlowTailReaderDoesNotMakeTheBrokerBufferEverything() throws Exception {
    // 40 MB in the log; a tail that reads nothing must leave the broker alive and able to serve.
    wire.create("slow", 1);
    String big = "x".repeat(10_000);
    for (int i = 0; i < 40; i++) {
      List<Record> batch = new ArrayList<>();
      for (int j = 0; j < 100; j++) {
        batch.add(Wire.value(big));
      }
      wire.produce("slow", 0, batch);
    }
    Context.CancellableContext context = Context.current().withCancellation();
    Context previous = context.attach();
    try {
      Iterator<TailResponse> tail = FetchServiceGrpc.newBlockingStub(broker.channel()).tail(TailRequest.newBuilder()
          .addPartitions(TailPartition.newBuilder().setTopic("slow").setPartition(0)
              .setStart(Position.newBuilder().setOffset(0)))
          .setMaxBytes(64 * 1024).build());
      long received = tail.next().getRecords().getRecordsCount();
      assertThat(received).isGreaterThan(0);
      Thread.sleep(1000); // the reader stalls; flow control must stop the broker from sending on
      assertThat(wire.fetchOne("slow", 0, 3999, 1, 1 << 20).getRecordsCount()).isEqualTo(1);
      while (received < 4000) {
        received += tail.next().getRecords().getRecordsCount();
      }
      assertThat(received).isEqualTo(4000);
    } finally {
      context.detach(previous);
      context.cancel(null);
    }
    assertThat(broker.isAlive()).isTrue();
  }
}
