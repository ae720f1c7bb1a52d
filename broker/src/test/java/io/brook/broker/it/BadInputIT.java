package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.brook.protocol.v1.AlterTopicConfigRequest;
import io.brook.protocol.v1.CreatePartitionsRequest;
import io.brook.protocol.v1.CreateTopicRequest;
import io.brook.protocol.v1.DeleteTopicRequest;
import io.brook.protocol.v1.DescribeTopicRequest;
import io.brook.protocol.v1.ErrorCode;
import io.brook.protocol.v1.FetchPartition;
import io.brook.protocol.v1.FetchRequest;
import io.brook.protocol.v1.ListTopicsRequest;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceResponse;
import io.brook.protocol.v1.Record;
import io.brook.protocol.v1.TopicDescription;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every kind of bad input gets a clear status or per-batch error, the broker stays up, and nothing
 * already written is lost. Also the admin lifecycle: create, alter, grow, delete and re-create.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BadInputIT {
  @TempDir static Path dir;
  static BrokerProcess broker;
  static Wire wire;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"), "--set", "max.batch.records=100", "--set",
        "max.request.bytes=1048576");
    wire = new Wire(broker.channel());
    wire.create("safe", 1);
    wire.produceValues("safe", 0, 10, "keep");
  }

  @AfterAll
  static void stop() throws Exception {
    // Whatever came before, the first records are intact and the broker is alive.
    assertThat(wire.readAll("safe", 0)).extracting(r -> r.getValue().toStringUtf8())
        .startsWith("keep0", "keep1", "keep2", "keep3", "keep4", "keep5", "keep6", "keep7", "keep8", "keep9");
    assertThat(broker.isAlive()).isTrue();
    broker.close();
  }

  static void assertStatus(ThrowingCallable call, Status.Code code, String reason, String messagePart) {
    assertThatThrownBy(call).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(code);
      assertThat(e.getStatus().getDescription()).contains(messagePart);
      assertThat(Wire.reason(e)).isEqualTo(reason);
    });
  }

  @Test
  void badTopicNamesAreRefusedBeforeTouchingTheDisk() throws Exception {
    long filesBefore = countFiles(broker.dataDir().getParent());
    for (String name : List.of("../etc", "..", ".", "a/b", "", "with space", "x".repeat(250), "tab\tname",
        "\u00e9t\u00e9")) {
      assertStatus(() -> wire.create(name, 1), Status.Code.INVALID_ARGUMENT, "INVALID_REQUEST",
          name.isEmpty() ? "name is required" : "invalid topic name");
    }
    assertThat(Files.exists(broker.dataDir().resolve("etc"))).isFalse();
    assertThat(Files.exists(broker.dataDir().getParent().resolve("etc"))).isFalse();
    assertThat(countFiles(broker.dataDir().getParent())).isEqualTo(filesBefore);
    assertThat(wire.create("x".repeat(249), 1).getName()).hasSize(249);
    assertThat(wire.create("ok.name_with-all.9", 1).getName()).isEqualTo("ok.name_with-all.9");
  }

  private static long countFiles(Path root) throws Exception {
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(p -> !p.toString().endsWith(".log")).count();
    }
  }

  @Test
  void adminMistakesGetTheRightStatus() {
    wire.create("admin", 2);
    assertStatus(() -> wire.create("admin", 1), Status.Code.ALREADY_EXISTS, "TOPIC_ALREADY_EXISTS", "already exists");
    assertStatus(() -> wire.admin.describeTopic(DescribeTopicRequest.newBuilder().setName("missing").build()),
        Status.Code.NOT_FOUND, "UNKNOWN_TOPIC", "unknown topic 'missing'");
    assertStatus(() -> wire.admin.createTopic(CreateTopicRequest.newBuilder().setName("neg").setPartitions(-1).build()),
        Status.Code.INVALID_ARGUMENT, "INVALID_REQUEST", "partitions");
    assertStatus(() -> wire.admin.createTopic(CreateTopicRequest.newBuilder().setName("cfg")
            .putConfig("retention.mss", "5").build()),
        Status.Code.INVALID_ARGUMENT, "INVALID_REQUEST", "unknown topic config key 'retention.mss'");
    assertStatus(() -> wire.admin.createTopic(CreateTopicRequest.newBuilder().setName("cfg")
            .putConfig("segment.roll", "3h").build()),
        Status.Code.INVALID_ARGUMENT, "INVALID_REQUEST", "unknown segment roll '3h'");
    assertStatus(() -> wire.admin.alterTopicConfig(AlterTopicConfigRequest.newBuilder().setName("admin")
            .putSet("segment.roll", "1d").build()),
        Status.Code.INVALID_ARGUMENT, "INVALID_REQUEST", "segment.roll is fixed");
    assertStatus(() -> wire.admin.alterTopicConfig(AlterTopicConfigRequest.newBuilder().setName("admin")
            .putSet("retention.ms", "soon").build()),
        Status.Code.INVALID_ARGUMENT, "INVALID_REQUEST", "retention.ms must be a whole number");
    assertStatus(() -> wire.admin.createPartitions(CreatePartitionsRequest.newBuilder().setName("admin")
            .setTotalPartitions(1).build()),
        Status.Code.INVALID_ARGUMENT, "INVALID_REQUEST", "never shrink");
    assertThat(wire.admin.listTopics(ListTopicsRequest.getDefaultInstance()).getTopicsList())
        .extracting(TopicDescription::getName).doesNotContain("neg", "cfg");
  }

  @Test
  void alterGrowDeleteAndRecreate() {
    TopicDescription created = wire.create("life", 1);
    wire.produceValues("life", 0, 5, "old");
    TopicDescription altered = wire.admin.alterTopicConfig(AlterTopicConfigRequest.newBuilder().setName("life")
        .putSet("retention.ms", "1000").putSet("message.timestamp.type", "LogAppendTime").build()).getTopic();
    assertThat(altered.getConfigMap()).containsEntry("retention.ms", "1000")
        .containsEntry("message.timestamp.type", "LogAppendTime");
    TopicDescription back = wire.admin.alterTopicConfig(AlterTopicConfigRequest.newBuilder().setName("life")
        .addRemove("retention.ms").build()).getTopic();
    assertThat(back.getConfigMap()).containsEntry("retention.ms", "604800000");
    TopicDescription grown = wire.admin.createPartitions(CreatePartitionsRequest.newBuilder().setName("life")
        .setTotalPartitions(3).build()).getTopic();
    assertThat(grown.getPartitionsCount()).isEqualTo(3);
    assertThat(grown.getPartitions(0).getEndOffset()).isEqualTo(5);
    assertThat(wire.produceValues("life", 2, 1, "new").getResults(0).getBaseOffset()).isZero();

    wire.admin.deleteTopic(DeleteTopicRequest.newBuilder().setName("life").build());
    assertThat(Files.exists(broker.dataDir().resolve("topics").resolve("life"))).isFalse();
    TopicDescription again = wire.create("life", 1);
    assertThat(again.getTopicId()).isNotEqualTo(created.getTopicId());
    assertThat(again.getPartitions(0).getEndOffset()).isZero();
    assertThat(again.getConfigMap()).containsEntry("message.timestamp.type", "CreateTime");
    assertThat(wire.produceValues("life", 0, 1, "fresh").getResults(0).getBaseOffset()).isZero();
  }

  @Test
  void badBatchesFailAloneWithAClearPerBatchError() {
    wire.admin.createTopic(CreateTopicRequest.newBuilder().setName("small").setPartitions(2)
        .putConfig("max.record.bytes", "1000").build());
    Record large = Record.newBuilder().setValue(ByteString.copyFrom(new byte[1001])).build();
    ProduceBatch.Builder tooMany = ProduceBatch.newBuilder().setTopic("small").setPartition(0);
    for (int i = 0; i < 101; i++) {
      tooMany.addRecords(Wire.value("r" + i));
    }
    ProduceResponse r = wire.produce.produce(ProduceRequest.newBuilder()
        .addBatches(ProduceBatch.newBuilder().setTopic("small").setPartition(0).addRecords(Wire.value("good")))
        .addBatches(ProduceBatch.newBuilder().setTopic("small").setPartition(0))
        .addBatches(ProduceBatch.newBuilder().setTopic("small").setPartition(0).addRecords(Wire.value("a"))
            .addRecords(large))
        .addBatches(tooMany)
        .addBatches(ProduceBatch.newBuilder().setTopic("nope").setPartition(0).addRecords(Wire.value("x")))
        .addBatches(ProduceBatch.newBuilder().setTopic("small").setPartition(7).addRecords(Wire.value("x")))
        .addBatches(ProduceBatch.newBuilder().setTopic("../etc").addRecords(Wire.value("x")))
        .addBatches(ProduceBatch.newBuilder().setTopic("small").setPartition(1)
            .addRecords(Record.newBuilder().setValue(ByteString.copyFromUtf8("t")).setTimestampMs(-5)))
        // The broker partitions this one: one too-large record refuses the whole batch, nothing half written.
        .addBatches(ProduceBatch.newBuilder().setTopic("small").addRecords(Wire.keyed("k1", "fine"))
            .addRecords(Record.newBuilder().setKey(ByteString.copyFromUtf8("k2")).setValue(large.getValue())))
        .addBatches(ProduceBatch.newBuilder().setTopic("small").setPartition(1).addRecords(Wire.value("also good")))
        .build());
    assertThat(r.getResultsList()).extracting(x -> x.getErrorCode()).containsExactly(
        ErrorCode.ERROR_CODE_UNSPECIFIED,
        ErrorCode.ERROR_CODE_INVALID_RECORD,
        ErrorCode.ERROR_CODE_RECORD_TOO_LARGE,
        ErrorCode.ERROR_CODE_BATCH_TOO_LARGE,
        ErrorCode.ERROR_CODE_UNKNOWN_TOPIC,
        ErrorCode.ERROR_CODE_UNKNOWN_PARTITION,
        ErrorCode.ERROR_CODE_INVALID_REQUEST,
        ErrorCode.ERROR_CODE_INVALID_RECORD,
        ErrorCode.ERROR_CODE_RECORD_TOO_LARGE,
        ErrorCode.ERROR_CODE_UNSPECIFIED);
    assertThat(r.getResults(2).getErrorMessage()).contains("1001 bytes").contains("max.record.bytes");
    assertThat(r.getResults(3).getErrorMessage()).contains("101 records").contains("max.batch.records");
    assertThat(r.getResults(5).getErrorMessage()).contains("no partition 7");
    assertThat(wire.readAll("small", 0)).extracting(x -> x.getValue().toStringUtf8()).containsExactly("good");
    assertThat(wire.readAll("small", 1)).extracting(x -> x.getValue().toStringUtf8()).containsExactly("also good");
  }

  @Test
  void maxMessageBytesCountsKeyValueAndHeaders() {
    wire.admin.createTopic(CreateTopicRequest.newBuilder().setName("counted").setPartitions(1)
        .putConfig("max.record.bytes", "100").build());
    // key "kkkk" (4) + value + header "ab" = "cd" (2 + 2): 100 bytes fit, 101 do not, as API.md §1.5 says
    ProduceResponse r = wire.produce.produce(ProduceRequest.newBuilder()
        .addBatches(ProduceBatch.newBuilder().setTopic("counted").setPartition(0).addRecords(headed(92)))
        .addBatches(ProduceBatch.newBuilder().setTopic("counted").setPartition(0).addRecords(headed(93)))
        .build());
    assertThat(r.getResults(0).getErrorCode()).isEqualTo(ErrorCode.ERROR_CODE_UNSPECIFIED);
    assertThat(r.getResults(1).getErrorCode()).isEqualTo(ErrorCode.ERROR_CODE_RECORD_TOO_LARGE);
    assertThat(r.getResults(1).getErrorMessage()).contains("is 101 bytes");
  }

  private static Record headed(int valueBytes) {
    return Record.newBuilder().setKey(ByteString.copyFromUtf8("kkkk")).setValue(ByteString.copyFrom(new byte[valueBytes]))
        .addHeaders(io.brook.protocol.v1.Header.newBuilder().setKey("ab").setValue(ByteString.copyFromUtf8("cd")))
        .build();
  }

  @Test
  void malformedRequestsFailWholeWithInvalidArgument() {
    assertStatus(() -> wire.produce.produce(ProduceRequest.getDefaultInstance()), Status.Code.INVALID_ARGUMENT,
        "INVALID_REQUEST", "at least one batch");
    assertStatus(() -> wire.fetch.fetch(FetchRequest.getDefaultInstance()), Status.Code.INVALID_ARGUMENT,
        "INVALID_REQUEST", "at least one partition");
    assertStatus(() -> wire.fetch.fetch(FetchRequest.newBuilder().setMaxWaitMs(-1)
            .addPartitions(FetchPartition.newBuilder().setTopic("safe")).build()),
        Status.Code.INVALID_ARGUMENT, "INVALID_REQUEST", "max_wait_ms");
  }

  @Test
  void aRequestOverTheSizeLimitIsRefusedAndTheBrokerStaysUp() {
    Record big = Record.newBuilder().setValue(ByteString.copyFrom(new byte[600_000])).build();
    assertThatThrownBy(() -> wire.produce("safe", 0, List.of(big, big)))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
    assertThat(wire.produceValues("safe", 0, 1, "after").getResults(0).getErrorCode())
        .isEqualTo(ErrorCode.ERROR_CODE_UNSPECIFIED);
  }
}
