package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.protocol.v1.DescribeTopicRequest;
import io.brook.protocol.v1.Durability;
import io.brook.protocol.v1.ErrorCode;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceResponse;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.ProduceStreamRequest;
import io.brook.protocol.v1.ProduceStreamResponse;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** SYNCED produces are answered after a force, and concurrent ones share forces (group commit). */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class DurabilityIT {
  @TempDir Path dir;

  static long forces(Wire wire, String topic) {
    return wire.admin.describeTopic(DescribeTopicRequest.newBuilder().setName(topic).build()).getTopic()
        .getPartitions(0).getForceCount();
  }

  static ProduceRequest request(String topic, Durability durability, String value) {
    return ProduceRequest.newBuilder().setDurability(durability)
        .addBatches(ProduceBatch.newBuilder().setTopic(topic).setPartition(0).addRecords(Wire.value(value))).build();
  }

  /** producers threads, each sending requestsEach SYNCED requests one after the other. */
  static void concurrentSyncedProducers(BrokerProcess broker, String topic, int producers, int requestsEach)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(producers);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < producers; t++) {
        int producer = t;
        done.add(pool.submit(() -> {
          ProduceServiceGrpc.ProduceServiceBlockingStub stub = ProduceServiceGrpc.newBlockingStub(broker.channel());
          for (int i = 0; i < requestsEach; i++) {
            ProduceResponse r = stub.produce(request(topic, Durability.DURABILITY_SYNCED, producer + "-" + i));
            assertThat(r.getResults(0).getErrorCode()).isEqualTo(ErrorCode.ERROR_CODE_UNSPECIFIED);
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void syncedIsAnsweredAfterAForceWrittenNeverForcesAndConcurrentSyncedProducersShareForces() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"))) {
      Wire wire = new Wire(broker.channel());
      wire.create("durable", 1);
      wire.produce.produce(request("durable", Durability.DURABILITY_WRITTEN, "w"));
      wire.produce.produce(request("durable", Durability.DURABILITY_UNSPECIFIED, "default"));
      assertThat(forces(wire, "durable")).as("WRITTEN never forces").isZero();
      wire.produce.produce(request("durable", Durability.DURABILITY_SYNCED, "s"));
      assertThat(forces(wire, "durable")).as("the SYNCED answer came after its force").isEqualTo(1);

      int producers = 16;
      int each = 30;
      concurrentSyncedProducers(broker, "durable", producers, each);
      long shared = forces(wire, "durable") - 1;
      System.out.println("group commit: " + producers * each + " SYNCED requests, " + shared + " forces");
      assertThat(shared).as("forces < requests").isPositive().isLessThan(producers * each);
      assertThat(wire.readAll("durable", 0)).hasSize(3 + producers * each);
    }
  }

  @Test
  void withGroupCommitOffEveryRequestForcesAlone() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"), "--set", "sync.group.commit=false")) {
      Wire wire = new Wire(broker.channel());
      wire.create("alone", 1);
      concurrentSyncedProducers(broker, "alone", 4, 20);
      assertThat(forces(wire, "alone")).isEqualTo(80);
    }
  }

  @Test
  void aStreamMixingWrittenAndSyncedAnswersInRequestOrder() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"))) {
      Wire wire = new Wire(broker.channel());
      wire.create("mixed", 1);
      Recorder<ProduceStreamResponse> recorder = new Recorder<>();
      StreamObserver<ProduceStreamRequest> stream = ProduceServiceGrpc.newStub(broker.channel()).produceStream(recorder);
      int requests = 400;
      for (int i = 0; i < requests; i++) {
        Durability d = i % 3 == 0 ? Durability.DURABILITY_SYNCED : Durability.DURABILITY_WRITTEN;
        stream.onNext(ProduceStreamRequest.newBuilder().setCorrelationId(i).setRequest(request("mixed", d, "m" + i))
            .build());
      }
      stream.onCompleted();
      assertThat(recorder.awaitEnd(60)).isTrue();
      List<ProduceStreamResponse> answers = recorder.messages();
      assertThat(answers).hasSize(requests);
      for (int i = 0; i < requests; i++) {
        assertThat(answers.get(i).getCorrelationId()).isEqualTo(i);
        assertThat(answers.get(i).getResponse().getResults(0).getBaseOffset()).isEqualTo(i);
      }
      assertThat(forces(wire, "mixed")).isPositive().isLessThanOrEqualTo(requests / 3 + 1);
    }
  }
}
