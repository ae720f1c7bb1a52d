package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.brook.protocol.batch.TestBatches;
import io.brook.protocol.v1.CreateTopicRequest;
import io.brook.protocol.v1.EncodedRecords;
import io.brook.protocol.v1.ErrorCode;
import io.brook.protocol.v1.InitProducerRequest;
import io.brook.protocol.v1.InitProducerResponse;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceResponse;
import io.brook.protocol.v1.ProduceResult;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.ProduceStreamRequest;
import io.brook.protocol.v1.ProduceStreamResponse;
import io.brook.protocol.v1.Record;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract of the one validation path: the same bad batch gets the same error code and message
 * through every door it can come by (unary Produce and the ProduceStream; a named partition, the
 * broker's partitioning, an idempotent producer), in each form (listed records, encoded_records), and
 * nothing of it is written. Messages name the batch's partition, or its topic when the broker
 * partitions it ({where} below).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BadBatchContractIT {
  static final long T = 1_763_900_000_000L;
  static final String TOPIC = "contract";

  @TempDir static Path dir;
  static BrokerProcess broker;
  static Wire wire;
  static ProduceServiceGrpc.ProduceServiceStub async;
  static InitProducerResponse producer;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"), "--set", "max.batch.records=5");
    wire = new Wire(broker.channel());
    async = ProduceServiceGrpc.newStub(broker.channel());
    wire.admin.createTopic(CreateTopicRequest.newBuilder().setName(TOPIC).setPartitions(2)
        .putConfig("max.record.bytes", "100").build());
    producer = wire.produce.initProducer(InitProducerRequest.getDefaultInstance());
  }

  @AfterAll
  static void stop() throws Exception {
    broker.close();
  }

  /** A bad batch (its topic and partition set by the door) and the error every door must answer. */
  record Bad(String name, ProduceBatch.Builder batch, ErrorCode code, String message) {}

  /** A way in: how it sends one batch, and what the messages call the batch's destination. */
  record Door(String name, String where, boolean takesEncoded, UnaryOperator<ProduceBatch.Builder> aim,
      boolean idempotent, boolean stream) {}

  static final List<Door> DOORS = List.of(
      new Door("unary, named partition", TOPIC + "-0", true, b -> b.setPartition(0), false, false),
      new Door("unary, broker-partitioned", TOPIC, false, b -> b, false, false),
      new Door("unary, idempotent", TOPIC + "-0", true, b -> b.setPartition(0).setBaseSequence(0), true, false),
      new Door("stream, named partition", TOPIC + "-0", true, b -> b.setPartition(0), false, true),
      new Door("stream, broker-partitioned", TOPIC, false, b -> b, false, true),
      new Door("stream, idempotent", TOPIC + "-0", true, b -> b.setPartition(0).setBaseSequence(0), true, true));

  static List<Bad> listed() {
    Record big = Record.newBuilder().setValue(ByteString.copyFrom(new byte[101])).build();
    ProduceBatch.Builder six = ProduceBatch.newBuilder();
    for (int i = 0; i < 6; i++) {
      six.addRecords(Wire.value("r" + i));
    }
    return List.of(
        new Bad("empty", ProduceBatch.newBuilder(), ErrorCode.ERROR_CODE_INVALID_RECORD,
            "empty batch for {where}: send at least one record"),
        new Bad("too many records", six, ErrorCode.ERROR_CODE_BATCH_TOO_LARGE,
            "batch for {where} has 6 records; the broker takes at most 5 (max.batch.records)"),
        new Bad("a record too large", ProduceBatch.newBuilder().addRecords(Wire.keyed("k", "fine")).addRecords(big),
            ErrorCode.ERROR_CODE_RECORD_TOO_LARGE,
            "record 1 of the batch for {where} is 101 bytes; topic contract takes at most 100 (max.record.bytes)"),
        new Bad("a negative timestamp", ProduceBatch.newBuilder().addRecords(Wire.value("a"))
            .addRecords(Wire.value("b").toBuilder().setTimestampMs(-5)), ErrorCode.ERROR_CODE_INVALID_RECORD,
            "record 1 has a negative timestamp -5 (leave timestamp_ms unset for the broker's time)"),
        new Bad("timestamp -1 given", ProduceBatch.newBuilder().addRecords(Wire.value("a").toBuilder()
            .setTimestampMs(-1)), ErrorCode.ERROR_CODE_INVALID_RECORD,
            "record 0 has a negative timestamp -1 (leave timestamp_ms unset for the broker's time)"),
        new Bad("a negative timestamp in a batch too large", six.clone().setRecords(3, Wire.value("x").toBuilder()
            .setTimestampMs(-7)), ErrorCode.ERROR_CODE_INVALID_RECORD,
            "record 3 has a negative timestamp -7 (leave timestamp_ms unset for the broker's time)"),
        new Bad("an unknown topic", ProduceBatch.newBuilder().setTopic("nope").addRecords(Wire.value("a")),
            ErrorCode.ERROR_CODE_UNKNOWN_TOPIC, "unknown topic 'nope'"));
  }

  static List<Bad> encoded() {
    ByteArrayOutputStream three = new ByteArrayOutputStream();
    for (int i = 0; i < 3; i++) {
      TestBatches.record(three, i, null, utf8("v" + i), new String[0]);
    }
    ByteArrayOutputStream badName = new ByteArrayOutputStream();
    TestBatches.record(badName, 0, null, utf8("v"), new String[] {"\u00ff", "x"});
    byte[] name = badName.toByteArray();
    name[name.length - 4] = (byte) 0xff; // "\u00ff" is 0xc3 0xbf: 0xff 0xbf is not UTF-8
    return List.of(
        new Bad("empty", encoded(0, new byte[0]), ErrorCode.ERROR_CODE_INVALID_RECORD,
            "empty batch for {where}: encoded_records.record_count is 0; send at least one record"),
        new Bad("too many records", encoded(6, three.toByteArray()), ErrorCode.ERROR_CODE_BATCH_TOO_LARGE,
            "batch for {where} has 6 records; the broker takes at most 5 (max.batch.records)"),
        new Bad("fewer records than it says", encoded(4, three.toByteArray()), ErrorCode.ERROR_CODE_INVALID_RECORD,
            "encoded_records of the batch for {where} do not hold 4 well-formed records: "),
        new Bad("a record too large", single(0, new byte[101], new String[0]), ErrorCode.ERROR_CODE_RECORD_TOO_LARGE,
            "record 0 of the batch for {where} is 101 bytes; topic contract takes at most 100 (max.record.bytes)"),
        new Bad("a negative timestamp", single(-T - 1, utf8("v"), new String[0]), ErrorCode.ERROR_CODE_INVALID_RECORD,
            "record 0 of the batch for {where} has a negative timestamp -1"),
        new Bad("a header name not UTF-8", encoded(1, name), ErrorCode.ERROR_CODE_INVALID_RECORD,
            "record 0 of the batch for {where} has a header name that is not UTF-8 (header 0)"),
        new Bad("both forms", encoded(3, three.toByteArray()).addRecords(Wire.value("x")),
            ErrorCode.ERROR_CODE_INVALID_REQUEST, "a batch carries records or encoded_records, not both ({where})"));
  }

  @Test
  void everyDoorAnswersABadListedBatchTheSame() throws Exception {
    assertEveryDoor(listed(), false);
  }

  @Test
  void everyDoorAnswersABadEncodedBatchTheSame() throws Exception {
    assertEveryDoor(encoded(), true);
  }

  @Test
  void aPartitionThatDoesNotExistIsTheSameErrorThroughEveryNamingDoor() throws Exception {
    for (Door door : DOORS) {
      if (!door.takesEncoded()) {
        continue; // it names no partition
      }
      ProduceResult r = send(door, ProduceBatch.newBuilder().setTopic(TOPIC).addRecords(Wire.value("a")),
          b -> door.aim().apply(b).setPartition(7));
      assertThat(r.getErrorCode()).as(door.name()).isEqualTo(ErrorCode.ERROR_CODE_UNKNOWN_PARTITION);
      assertThat(r.getErrorMessage()).as(door.name())
          .isEqualTo("topic contract has no partition 7 (it has 2 partitions: 0 to 1)");
    }
  }

  /** Each bad batch through each door that takes its form: one answer, the expected one, nothing written. */
  static void assertEveryDoor(List<Bad> bads, boolean encodedForm) throws Exception {
    int checked = 0;
    for (Bad bad : bads) {
      for (Door door : DOORS) {
        if (encodedForm && !door.takesEncoded()) {
          continue; // the broker partitions listed records only
        }
        ProduceBatch.Builder batch = bad.batch().clone();
        if (batch.getTopic().isEmpty()) {
          batch.setTopic(TOPIC);
        }
        ProduceResult r = send(door, batch, door.aim());
        checked++;
        String expected = bad.message().replace("{where}", door.where());
        assertThat(r.getErrorCode()).as(bad.name() + " via " + door.name() + ": " + r.getErrorMessage())
            .isEqualTo(bad.code());
        assertThat(r.getErrorMessage()).as(bad.name() + " via " + door.name()).startsWith(expected);
        if (!expected.endsWith(": ")) { // a corrupt section's reason follows; the rest is whole
          assertThat(r.getErrorMessage()).as(bad.name() + " via " + door.name()).isEqualTo(expected);
        }
      }
    }
    assertThat(checked).as("bad batches times the doors that take their form")
        .isEqualTo(bads.size() * (encodedForm ? 4 : DOORS.size()));
    for (int p = 0; p < 2; p++) {
      assertThat(wire.readAll(TOPIC, p)).as("nothing of a refused batch is written").isEmpty();
    }
  }

  static ProduceResult send(Door door, ProduceBatch.Builder batch, UnaryOperator<ProduceBatch.Builder> aim)
      throws Exception {
    ProduceRequest.Builder request = ProduceRequest.newBuilder().addBatches(aim.apply(batch));
    if (door.idempotent()) {
      request.setProducerId(producer.getProducerId()).setProducerEpoch(producer.getProducerEpoch());
    }
    ProduceResponse response = door.stream() ? viaStream(request.build()) : wire.produce.produce(request.build());
    assertThat(response.getResultsCount()).as(door.name() + ": one result for one batch").isEqualTo(1);
    return response.getResults(0);
  }

  /** One request over its own ProduceStream, and its answer. */
  static ProduceResponse viaStream(ProduceRequest request) throws Exception {
    CompletableFuture<ProduceResponse> answer = new CompletableFuture<>();
    List<ProduceStreamResponse> got = new ArrayList<>();
    StreamObserver<ProduceStreamRequest> out = async.produceStream(new StreamObserver<>() {
      @Override
      public void onNext(ProduceStreamResponse r) {
        got.add(r);
      }

      @Override
      public void onError(Throwable t) {
        answer.completeExceptionally(t);
      }

      @Override
      public void onCompleted() {
        if (got.size() == 1 && got.get(0).getCorrelationId() == 42) {
          answer.complete(got.get(0).getResponse());
        } else {
          answer.completeExceptionally(new AssertionError("expected one answer to request 42, got " + got));
        }
      }
    });
    out.onNext(ProduceStreamRequest.newBuilder().setCorrelationId(42).setRequest(request).build());
    out.onCompleted();
    return answer.get(30, TimeUnit.SECONDS);
  }

  static ProduceBatch.Builder encoded(int count, byte[] section) {
    return ProduceBatch.newBuilder().setEncodedRecords(EncodedRecords.newBuilder().setRecordCount(count)
        .setBaseTimestampMs(T).setRecords(ByteString.copyFrom(section)));
  }

  static ProduceBatch.Builder single(long delta, byte[] value, String[] headers) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    TestBatches.record(out, delta, null, value, headers);
    return encoded(1, out.toByteArray());
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
