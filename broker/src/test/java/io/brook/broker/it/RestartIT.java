package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceResult;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.ProduceStreamRequest;
import io.brook.protocol.v1.ProduceStreamResponse;
import io.brook.protocol.v1.Record;
import io.brook.protocol.v1.TopicDescription;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Everything answered survives a restart, graceful or kill -9, at the same offset. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RestartIT {
  @TempDir Path dir;

  @Test
  void recordsSurviveAGracefulRestartAndOffsetsContinue() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"))) {
      Wire wire = new Wire(broker.channel());
      TopicDescription before = wire.create("kept", 2);
      wire.produceValues("kept", 0, 100, "p0-");
      wire.produceValues("kept", 1, 50, "p1-");
      broker.stop();
      broker.restart();
      wire = new Wire(broker.channel());
      TopicDescription after = wire.admin.describeTopic(
          io.brook.protocol.v1.DescribeTopicRequest.newBuilder().setName("kept").build()).getTopic();
      assertThat(after.getTopicId()).isEqualTo(before.getTopicId());
      assertThat(after.getPartitions(0).getEndOffset()).isEqualTo(100);
      assertThat(after.getPartitions(0).getSizeBytes()).isPositive();
      assertThat(wire.readAll("kept", 1)).extracting(r -> r.getValue().toStringUtf8()).hasSize(50).startsWith("p1-0")
          .endsWith("p1-49");
      assertThat(wire.produceValues("kept", 1, 1, "next").getResults(0).getBaseOffset()).isEqualTo(50);
    }
  }

  @Test
  void everyAnsweredRecordSurvivesKillMinus9DuringAProduceStream() throws Exception {
    everyAnsweredRecordSurvives(BrokerProcess::kill9);
  }

  /** SIGTERM: the broker finishes what it can within its grace, stops cleanly and exits 0. */
  @Test
  void everyAnsweredRecordSurvivesSigtermDuringAProduceStreamAndTheBrokerExitsZero() throws Exception {
    everyAnsweredRecordSurvives(broker -> {
      assertThat(broker.terminate()).as("exit code after SIGTERM").isZero();
      assertThat(broker.currentStartLog()).contains("SIGTERM received: stopping").contains("Brook stopped");
    });
  }

  interface Stopper {
    void stop(BrokerProcess broker) throws Exception;
  }

  private void everyAnsweredRecordSurvives(Stopper stopper) throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"))) {
      Wire wire = new Wire(broker.channel());
      wire.create("crash", 3);
      // offset -> value, for every record whose produce was answered
      Map<String, String> answered = new ConcurrentHashMap<>();
      AtomicInteger answers = new AtomicInteger();
      CountDownLatch ended = new CountDownLatch(1);
      java.util.Queue<ProduceStreamRequest> sent = new java.util.concurrent.ConcurrentLinkedQueue<>();
      StreamObserver<ProduceStreamRequest> stream = ProduceServiceGrpc.newStub(broker.channel())
          .produceStream(new StreamObserver<>() {
            @Override
            public void onNext(ProduceStreamResponse r) {
              ProduceStreamRequest request = sent.poll();
              for (ProduceResult result : r.getResponse().getResultsList()) {
                ProduceBatch batch = request.getRequest().getBatches(result.getBatchIndex());
                for (int i = 0; i < result.getRecordCount(); i++) {
                  answered.put(result.getPartition() + "/" + (result.getBaseOffset() + i),
                      batch.getRecords(i).getValue().toStringUtf8());
                }
              }
              answers.incrementAndGet();
            }

            @Override public void onError(Throwable t) { ended.countDown(); }
            @Override public void onCompleted() { ended.countDown(); }
          });
      Thread producer = new Thread(() -> {
        try {
          for (int i = 0; i < 20_000 && ended.getCount() > 0; i++) {
            ProduceBatch.Builder b = ProduceBatch.newBuilder().setTopic("crash").setPartition(i % 3);
            for (int j = 0; j < 20; j++) {
              b.addRecords(Wire.value("v-" + i + "-" + j));
            }
            ProduceStreamRequest request = ProduceStreamRequest.newBuilder().setCorrelationId(i)
                .setRequest(ProduceRequest.newBuilder().addBatches(b)).build();
            sent.add(request);
            stream.onNext(request);
            if (i % 50 == 49) {
              Thread.sleep(2); // stay near the broker's pace: bounded client memory
            }
          }
        } catch (InterruptedException | RuntimeException e) {
          // the stream broke when the broker died
        }
      });
      producer.start();
      while (answers.get() < 300) {
        Thread.sleep(10);
      }
      stopper.stop(broker);
      assertThat(ended.await(30, TimeUnit.SECONDS)).isTrue();
      producer.join(30_000);
      assertThat(answered).hasSizeGreaterThan(300 * 20 - 1);

      long restartStarted = System.nanoTime();
      broker.restart(); // waits for "Brook ready" (bounded by BrokerProcess.START_TIMEOUT_S)
      long restartMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restartStarted);
      HealthCheckResponse health = HealthGrpc.newBlockingStub(broker.channel())
          .check(HealthCheckRequest.getDefaultInstance());
      assertThat(health.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
      System.out.println("restart was SERVING after " + restartMs + " ms");

      Wire after = new Wire(broker.channel());
      long[] ends = new long[3];
      for (int p = 0; p < 3; p++) {
        List<Record> records = after.readAll("crash", p);
        for (int i = 0; i < records.size(); i++) {
          assertThat(records.get(i).getOffset()).as("offsets stay contiguous").isEqualTo(i);
        }
        for (Record r : records) {
          String expected = answered.get(p + "/" + r.getOffset());
          if (expected != null) {
            assertThat(r.getValue().toStringUtf8()).isEqualTo(expected);
          }
        }
        ends[p] = records.size();
      }
      for (Map.Entry<String, String> e : answered.entrySet()) {
        int p = Integer.parseInt(e.getKey().substring(0, e.getKey().indexOf('/')));
        long offset = Long.parseLong(e.getKey().substring(e.getKey().indexOf('/') + 1));
        assertThat(offset).as("answered record %s is still there", e.getKey()).isLessThan(ends[p]);
      }
      assertThat(after.produceValues("crash", 0, 1, "after").getResults(0).getBaseOffset()).isEqualTo(ends[0]);
    }
  }
}
