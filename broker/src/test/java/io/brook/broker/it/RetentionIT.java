package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.config.BrokerConfig;
import io.brook.broker.server.Broker;
import io.brook.broker.storage.ManualClock;
import io.brook.broker.storage.chronicle.ChronicleLog;
import io.brook.client.Serdes;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerConfig;
import io.brook.client.consumer.ConsumerRecord;
import io.brook.client.consumer.OffsetResetStrategy;
import io.brook.client.errors.OffsetOutOfRangeException;
import io.brook.protocol.v1.AlterTopicConfigRequest;
import io.brook.protocol.v1.CommitOffsetsRequest;
import io.brook.protocol.v1.CreateGroupRequest;
import io.brook.protocol.v1.CreateTopicRequest;
import io.brook.protocol.v1.DescribeGroupRequest;
import io.brook.protocol.v1.DescribeTopicRequest;
import io.brook.protocol.v1.ErrorCode;
import io.brook.protocol.v1.GroupDescription;
import io.brook.protocol.v1.GroupMode;
import io.brook.protocol.v1.GroupPartition;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.OffsetCommit;
import io.brook.protocol.v1.PartitionDescription;
import io.brook.protocol.v1.PartitionRecords;
import io.brook.protocol.v1.SettleFailure;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retention end to end, on a real broker (Chronicle, gRPC) whose clock the test moves: hourly
 * segments and a week of retention run in seconds. In process, because only there can the clock be
 * injected; the retention pass runs every 50 ms of real time, as it would every 30 s in production.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RetentionIT {
  static final long HOUR = 3_600_000L;
  /** An hour boundary plus a minute, so each hour's appends land in their own hourly segment. */
  static final long T0 = (System.currentTimeMillis() / HOUR - 24 * 30) * HOUR + 60_000;

  @TempDir Path dir;
  final ManualClock clock = new ManualClock(T0);
  Broker broker;
  ManagedChannel channel;
  Wire wire;

  void start() throws IOException {
    BrokerConfig config = BrokerConfig.resolve(null, Map.of(), Map.of("data.dir", dir.resolve("data").toString(),
        "grpc.listen", "127.0.0.1:0", "http.listen", "127.0.0.1:0", "kafka.listen", "127.0.0.1:0", "retention.check.interval.ms", "50", "group.min.session.timeout.ms", "500"));
    broker = Broker.start(config, ChronicleLog::open, clock);
    channel = ManagedChannelBuilder.forAddress("127.0.0.1", broker.port()).usePlaintext().build();
    wire = new Wire(channel);
  }

  void stop() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    broker.close();
    broker = null;
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    if (broker != null) {
      stop();
    }
  }

  void createTopic(String name, Map<String, String> config) {
    wire.admin.createTopic(CreateTopicRequest.newBuilder().setName(name).setPartitions(1).putAllConfig(config).build());
  }

  PartitionDescription describe(String topic) {
    return wire.admin.describeTopic(DescribeTopicRequest.newBuilder().setName(topic).build()).getTopic()
        .getPartitions(0);
  }

  /** Produces {@code perHour} records ("h<hour>-<i>") in each of {@code hours} hours, the clock moving an hour after each. */
  void produceHourly(String topic, int hours, int perHour, int valueBytes) {
    for (int h = 0; h < hours; h++) {
      List<io.brook.protocol.v1.Record> batch = new ArrayList<>();
      for (int i = 0; i < perHour; i++) {
        String v = "h" + h + "-" + i;
        batch.add(Wire.value(v + "x".repeat(Math.max(0, valueBytes - v.length()))));
      }
      assertThat(wire.produce(topic, 0, batch).getResults(0).getErrorCode()).isEqualTo(ErrorCode.ERROR_CODE_UNSPECIFIED);
      clock.advance(HOUR);
    }
  }

  static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(20);
    }
  }

  long segmentFiles(String topic) throws IOException {
    try (Stream<Path> files = Files.list(dir.resolve("data/topics").resolve(topic).resolve("0"))) {
      return files.filter(f -> f.toString().endsWith(".cq4")).count();
    }
  }

  @Test
  void aWeekOfHourlySegmentsShrinksToTheRetentionWindowAndStaysSoAfterARestart() throws Exception {
    start();
    createTopic("events", Map.of("segment.roll", "1h", "retention.ms", String.valueOf(7 * 24 * HOUR)));
    produceHourly("events", 9 * 24, 5, 20);
    // Now is hour 216: segments appended at hour 48 or before are more than 7 days old.
    long expectedStart = 49 * 5;
    await("the log start to reach " + expectedStart, () -> describe("events").getLogStartOffset() == expectedStart);
    Thread.sleep(200); // a few more passes: nothing else may go
    PartitionDescription p = describe("events");
    assertThat(p.getLogStartOffset()).isEqualTo(expectedStart);
    assertThat(p.getEndOffset()).isEqualTo(9 * 24 * 5);
    assertThat(p.getSegmentCount()).isEqualTo(9 * 24 - 49);
    assertThat(segmentFiles("events")).as("segment files left on disk").isEqualTo(9 * 24 - 49);
    assertThat(broker.retention().segmentsDeleted()).isEqualTo(49);
    assertThat(broker.retention().recordsDeleted()).isEqualTo(expectedStart);

    PartitionRecords below = wire.fetchOne("events", 0, expectedStart - 1, 10, 1 << 20);
    assertThat(below.getErrorCode()).isEqualTo(ErrorCode.ERROR_CODE_OFFSET_OUT_OF_RANGE);
    assertThat(below.getLogStartOffset()).isEqualTo(expectedStart);
    assertThat(wire.fetchOne("events", 0, expectedStart, 1, 1 << 20).getRecords(0).getValue().toStringUtf8())
        .startsWith("h49-0");

    stop();
    start();
    p = describe("events");
    assertThat(p.getLogStartOffset()).isEqualTo(expectedStart);
    assertThat(p.getEndOffset()).isEqualTo(9 * 24 * 5);
    assertThat(segmentFiles("events")).isEqualTo(9 * 24 - 49);
    assertThat(wire.fetchOne("events", 0, 0, 1, 1 << 20).getErrorCode())
        .isEqualTo(ErrorCode.ERROR_CODE_OFFSET_OUT_OF_RANGE);
  }

  @Test
  void retentionBytesKeepsBetweenTheLimitAndTheLimitPlusOneSegment() throws Exception {
    start();
    createTopic("sized", Map.of("segment.roll", "1h", "retention.ms", "-1"));
    produceHourly("sized", 30, 10, 100);
    long segmentBytes = describe("sized").getSizeBytes() / 30;
    long limit = segmentBytes * 10 + segmentBytes / 2; // ten and a half segments' worth
    wire.admin.alterTopicConfig(AlterTopicConfigRequest.newBuilder().setName("sized")
        .putSet("retention.bytes", String.valueOf(limit)).build());
    await("the size to fall", () -> describe("sized").getSegmentCount() < 30);
    Thread.sleep(200);
    PartitionDescription p = describe("sized");
    assertThat(p.getSegmentCount()).isEqualTo(11);
    assertThat(p.getSizeBytes()).isBetween(limit, limit + segmentBytes);
    assertThat(p.getLogStartOffset()).isEqualTo(19 * 10);
  }

  GroupServiceGrpc.GroupServiceBlockingStub groups() {
    return GroupServiceGrpc.newBlockingStub(channel);
  }

  GroupPartition groupPartition(String group) {
    GroupDescription g = groups().describeGroup(DescribeGroupRequest.newBuilder().setGroup(group).build()).getGroup();
    return g.getPartitions(0);
  }

  BrookConsumer<byte[], byte[]> consumer(String group, OffsetResetStrategy reset) {
    BrookConsumer<byte[], byte[]> c = new BrookConsumer<>(ConsumerConfig.builder().channel(channel).groupId(group)
        .sessionTimeout(Duration.ofMillis(5000)).fetchMaxWait(Duration.ofMillis(100)).autoOffsetReset(reset)
        .build(), Serdes.bytesDeserializer(), Serdes.bytesDeserializer());
    c.subscribe(List.of("jobs"));
    return c;
  }

  List<ConsumerRecord<byte[], byte[]>> pollUntil(BrookConsumer<byte[], byte[]> c, int count) {
    List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (got.size() < count && System.nanoTime() < deadline) {
      got.addAll(c.poll(Duration.ofMillis(200)).asList());
    }
    return got;
  }

  @Test
  void groupsBelowTheNewLogStartSettleOrResetAsDocumented() throws Exception {
    start();
    createTopic("jobs", Map.of("segment.roll", "1h", "retention.ms", "-1"));
    produceHourly("jobs", 5, 10, 10); // offsets 0-49, ten per segment; now is hour 5
    groups().createGroup(CreateGroupRequest.newBuilder().setGroup("workers").setMode(GroupMode.GROUP_MODE_ACK)
        .putConfig("auto.offset.reset", "earliest").build());
    for (String g : List.of("readers-earliest", "readers-none", "readers-latest")) {
      groups().commitOffsets(CommitOffsetsRequest.newBuilder().setGroup(g)
          .addOffsets(OffsetCommit.newBuilder().setTopic("jobs").setPartition(0).setOffset(5)).build());
    }
    try (AckStream worker = new AckStream(channel, "workers", "w1", 1000, "jobs")) {
      List<AckStream.Got> got = worker.take(50, 10_000);
      worker.ack(AckStream.range("jobs", 0, 0, 14));
      await("15 acks", () -> groupPartition("workers").getCommittedOffset() == 15);

      // Segments of hours 0-3 are now more than an hour old.
      wire.admin.alterTopicConfig(AlterTopicConfigRequest.newBuilder().setName("jobs")
          .putSet("retention.ms", String.valueOf(HOUR)).build());
      await("retention of jobs", () -> describe("jobs").getLogStartOffset() == 40);
      await("the group to settle what was deleted", () -> groupPartition("workers").getCommittedOffset() == 40);
      GroupPartition gp = groupPartition("workers");
      assertThat(gp.getRetentionDeletedRecords()).as("leased, unacked and deleted: 15-39").isEqualTo(25);
      assertThat(gp.getUnsettledRecords()).isEqualTo(10);

      worker.ack(AckStream.range("jobs", 0, 20, 20));
      SettleFailure f = worker.nextFailure(10_000);
      assertThat(f.getErrorCode()).isEqualTo(ErrorCode.ERROR_CODE_ALREADY_SETTLED);
      worker.ack(got.subList(40, 50));
      await("the rest acked", () -> groupPartition("workers").getCommittedOffset() == 50);
    }

    try (BrookConsumer<byte[], byte[]> earliest = consumer("readers-earliest", OffsetResetStrategy.EARLIEST)) {
      List<ConsumerRecord<byte[], byte[]>> got = pollUntil(earliest, 10);
      assertThat(got).hasSize(10);
      assertThat(got.get(0).offset()).as("committed 5 was deleted: reset to the log start").isEqualTo(40);
    }
    try (BrookConsumer<byte[], byte[]> none = consumer("readers-none", OffsetResetStrategy.NONE)) {
      assertThatThrownBy(() -> pollUntil(none, 1)).isInstanceOf(OffsetOutOfRangeException.class)
          .hasMessageContaining("out of range").hasMessageContaining("auto.offset.reset is none");
    }
    try (BrookConsumer<byte[], byte[]> latest = consumer("readers-latest", OffsetResetStrategy.LATEST)) {
      assertThat(latest.poll(Duration.ofMillis(300)).isEmpty()).isTrue();
      wire.produceValues("jobs", 0, 1, "fresh");
      List<ConsumerRecord<byte[], byte[]>> got = pollUntil(latest, 1);
      assertThat(got).extracting(ConsumerRecord::offset).containsExactly(50L);
    }

    stop();
    start();
    GroupPartition after = groupPartition("workers");
    assertThat(after.getCommittedOffset()).isEqualTo(50);
    assertThat(after.getUnsettledRecords()).isZero();
  }
}
