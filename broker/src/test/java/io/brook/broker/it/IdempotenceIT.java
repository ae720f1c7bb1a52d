package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.protocol.v1.DescribeTopicRequest;
import io.brook.protocol.v1.ErrorCode;
import io.brook.protocol.v1.InitProducerRequest;
import io.brook.protocol.v1.InitProducerResponse;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceResult;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.Record;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Idempotent producers against the real broker: retries never duplicate, state survives restarts. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class IdempotenceIT {
  @TempDir Path dir;

  static InitProducerResponse init(BrokerProcess broker) {
    return ProduceServiceGrpc.newBlockingStub(broker.channel()).initProducer(InitProducerRequest.getDefaultInstance());
  }

  static ProduceResult send(BrokerProcess broker, InitProducerResponse id, String topic, int partition, int seq,
      String... values) {
    ProduceBatch.Builder b = ProduceBatch.newBuilder().setTopic(topic).setPartition(partition).setBaseSequence(seq);
    for (String v : values) {
      b.addRecords(Wire.value(v));
    }
    return ProduceServiceGrpc.newBlockingStub(broker.channel()).produce(ProduceRequest.newBuilder()
        .setProducerId(id.getProducerId()).setProducerEpoch(id.getProducerEpoch()).addBatches(b).build())
        .getResults(0);
  }

  static List<String> values(Wire wire, String topic) {
    return wire.readAll(topic, 0).stream().map(r -> r.getValue().toStringUtf8()).toList();
  }

  @Test
  void retriesAreAnsweredWithTheFirstWriteAndSequencesAreChecked() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"))) {
      Wire wire = new Wire(broker.channel());
      wire.create("idem", 1);
      InitProducerResponse id = init(broker);
      assertThat(id.getProducerId()).isPositive();
      assertThat(id.getProducerEpoch()).isZero();
      assertThat(init(broker).getProducerId()).as("each init is a new producer").isNotEqualTo(id.getProducerId());

      ProduceResult first = send(broker, id, "idem", 0, 0, "a", "b");
      ProduceResult second = send(broker, id, "idem", 0, 2, "c");
      ProduceResult retry = send(broker, id, "idem", 0, 2, "c"); // its answer was "lost"
      assertThat(retry.getDuplicate()).isTrue();
      assertThat(retry.getBaseOffset()).isEqualTo(second.getBaseOffset());
      assertThat(retry.getAppendTimeMs()).isEqualTo(second.getAppendTimeMs());
      ProduceResult olderRetry = send(broker, id, "idem", 0, 0, "a", "b");
      assertThat(olderRetry.getDuplicate()).isTrue();
      assertThat(olderRetry.getBaseOffset()).isEqualTo(first.getBaseOffset());
      assertThat(values(wire, "idem")).containsExactly("a", "b", "c");

      ProduceResult gap = send(broker, id, "idem", 0, 5, "x");
      assertThat(gap.getErrorCode()).isEqualTo(ErrorCode.ERROR_CODE_OUT_OF_ORDER_SEQUENCE);
      assertThat(gap.getErrorMessage()).contains("expected sequence 3, got 5");
      assertThat(send(broker, id, "idem", 0, 3, "d").getBaseOffset()).isEqualTo(3);
      assertThat(values(wire, "idem")).containsExactly("a", "b", "c", "d");

      ProduceResult unknown = send(broker, InitProducerResponse.newBuilder().setProducerId(999_999).build(),
          "idem", 0, 0, "y");
      assertThat(unknown.getErrorCode()).isEqualTo(ErrorCode.ERROR_CODE_UNKNOWN_PRODUCER_ID);
      ProduceResult noSequence = ProduceServiceGrpc.newBlockingStub(broker.channel()).produce(ProduceRequest.newBuilder()
          .setProducerId(id.getProducerId()).addBatches(ProduceBatch.newBuilder().setTopic("idem").setPartition(0)
              .addRecords(Wire.value("z"))).build()).getResults(0);
      assertThat(noSequence.getErrorCode()).isEqualTo(ErrorCode.ERROR_CODE_INVALID_REQUEST);
      assertThat(values(wire, "idem")).hasSize(4);
    }
  }

  @Test
  void aNewEpochFencesTheOldInstanceEverywhere() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"))) {
      Wire wire = new Wire(broker.channel());
      wire.create("fence", 2);
      InitProducerResponse old = init(broker);
      send(broker, old, "fence", 0, 0, "old-0");
      InitProducerResponse bumped = ProduceServiceGrpc.newBlockingStub(broker.channel())
          .initProducer(InitProducerRequest.newBuilder().setProducerId(old.getProducerId()).build());
      assertThat(bumped.getProducerEpoch()).isEqualTo(1);
      for (int partition : new int[] {0, 1}) { // also where the new epoch has not written yet
        ProduceResult fenced = send(broker, old, "fence", partition, partition == 0 ? 1 : 0, "old-again");
        assertThat(fenced.getErrorCode()).isEqualTo(ErrorCode.ERROR_CODE_PRODUCER_FENCED);
      }
      assertThat(send(broker, bumped, "fence", 0, 1, "new").getErrorCode())
          .as("a new epoch starts at 0").isEqualTo(ErrorCode.ERROR_CODE_OUT_OF_ORDER_SEQUENCE);
      assertThat(send(broker, bumped, "fence", 0, 0, "new").getBaseOffset()).isEqualTo(1);
      assertThatThrownBy(() -> ProduceServiceGrpc.newBlockingStub(broker.channel())
          .initProducer(InitProducerRequest.newBuilder().setProducerId(123_456_789).build()))
          .isInstanceOfSatisfying(StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION));
    }
  }

  @Test
  void producerStateSurvivesKillMinus9AndAGracefulRestart() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"))) {
      Wire wire = new Wire(broker.channel());
      wire.create("kept", 1);
      InitProducerResponse id = init(broker);
      for (int seq = 0; seq < 8; seq++) {
        send(broker, id, "kept", 0, seq, "v" + seq);
      }
      broker.kill9(); // no snapshot was written: the state comes back from the log
      broker.restart();
      ProduceResult retry = send(broker, id, "kept", 0, 7, "v7");
      assertThat(retry.getDuplicate()).isTrue();
      assertThat(retry.getBaseOffset()).isEqualTo(7);
      assertThat(send(broker, id, "kept", 0, 8, "v8").getBaseOffset()).isEqualTo(8);
      InitProducerResponse other = init(broker);
      assertThat(other.getProducerId()).as("ids are never handed out twice").isGreaterThan(id.getProducerId());

      broker.stop(); // a clean stop writes the snapshot
      broker.restart();
      assertThat(send(broker, id, "kept", 0, 8, "v8").getDuplicate()).isTrue();
      assertThat(send(broker, id, "kept", 0, 9, "v9").getBaseOffset()).isEqualTo(9);
      assertThat(values(new Wire(broker.channel()), "kept")).hasSize(10);
    }
  }

  /**
   * Retention (a later issue) deletes whole segments; simulated here on a stopped broker by removing
   * the oldest segment file, the only one holding producer P's batches. P's state must come back
   * from the snapshot, not from the log.
   */
  @Test
  void producerStateSurvivesTheDeletionOfTheSegmentThatRecordedIt() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"))) {
      Wire wire = new Wire(broker.channel());
      wire.admin.createTopic(io.brook.protocol.v1.CreateTopicRequest.newBuilder().setName("aged").setPartitions(1)
          .putConfig("segment.roll", "1s").build());
      InitProducerResponse p = init(broker);
      send(broker, p, "aged", 0, 0, "p0", "p1");
      Thread.sleep(1500); // the next write opens a new segment
      InitProducerResponse q = init(broker);
      send(broker, q, "aged", 0, 0, "q0");
      broker.stop();
      Path partitionDir = broker.dataDir().resolve("topics").resolve("aged").resolve("0");
      List<Path> segments;
      try (var files = java.nio.file.Files.list(partitionDir)) {
        segments = files.filter(f -> f.toString().endsWith(".cq4")).sorted().toList();
      }
      assertThat(segments).hasSize(2);
      java.nio.file.Files.delete(segments.get(0));
      broker.restart();
      Wire after = new Wire(broker.channel());
      io.brook.protocol.v1.PartitionRecords left = after.fetchOne("aged", 0, 2, 10, 1 << 20);
      assertThat(left.getLogStartOffset()).as("p's segment is gone").isEqualTo(2);
      assertThat(left.getRecordsList()).extracting(r -> r.getValue().toStringUtf8()).containsExactly("q0");
      ProduceResult retry = send(broker, p, "aged", 0, 0, "p0", "p1");
      assertThat(retry.getDuplicate()).as("known from the snapshot").isTrue();
      assertThat(retry.getBaseOffset()).isZero();
      assertThat(send(broker, p, "aged", 0, 2, "p2").getBaseOffset()).isEqualTo(3);
    }
  }

  @Test
  void idleProducersExpireSoTheTableDoesNotGrow() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"), "--set", "producer.id.expiration.ms=1000",
        "--set", "producer.maintenance.interval.ms=100")) {
      Wire wire = new Wire(broker.channel());
      wire.create("short", 1);
      InitProducerResponse id = null;
      for (int i = 0; i < 5; i++) { // five CLI-like runs, each a new producer
        id = init(broker);
        send(broker, id, "short", 0, 0, "run" + i);
      }
      assertThat(producers(wire, "short")).isEqualTo(5);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (producers(wire, "short") > 0 && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertThat(producers(wire, "short")).isZero();
      ProduceResult afterExpiry = send(broker, id, "short", 0, 1, "late");
      assertThat(afterExpiry.getErrorCode()).isEqualTo(ErrorCode.ERROR_CODE_UNKNOWN_PRODUCER_ID);
    }
  }

  @Test
  void theCliProducesAsAnIdempotentProducerByDefault() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"))) {
      Wire wire = new Wire(broker.channel());
      wire.create("cli", 1);
      Path input = dir.resolve("lines.txt");
      java.nio.file.Files.writeString(input, "one\ntwo\nthree\n");
      String launcher = System.getProperty("brook.launcher");
      java.util.Map<String, String> env = java.util.Map.of("BROOK_BROKER", broker.address());
      Exec.Result idempotent = Exec.run(List.of(launcher, "produce", "cli"), env, input, dir.resolve("out"));
      assertThat(idempotent.exitCode()).as(idempotent.toString()).isZero();
      assertThat(producers(wire, "cli")).as("one producer: the CLI run").isEqualTo(1);
      Exec.Result plain = Exec.run(List.of(launcher, "produce", "cli", "--no-idempotence"), env, input,
          dir.resolve("out"));
      assertThat(plain.exitCode()).as(plain.toString()).isZero();
      assertThat(producers(wire, "cli")).as("a plain producer leaves no state").isEqualTo(1);
      assertThat(values(wire, "cli")).containsExactly("one", "two", "three", "one", "two", "three");
    }
  }

  static int producers(Wire wire, String topic) {
    return wire.admin.describeTopic(DescribeTopicRequest.newBuilder().setName(topic).build()).getTopic()
        .getPartitions(0).getProducerCount();
  }
}
