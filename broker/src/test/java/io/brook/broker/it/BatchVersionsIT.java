package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.brook.broker.records.LogRecord;
import io.brook.broker.records.ProducerStamp;
import io.brook.broker.storage.AppendBatch;
import io.brook.broker.storage.BatchHeader;
import io.brook.broker.storage.ByteWriter;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.storage.Version1Encoder;
import io.brook.broker.storage.chronicle.ChronicleRolls;
import io.brook.protocol.batch.BatchFormat;
import io.brook.protocol.batch.BatchReader;
import io.brook.protocol.v1.DescribeTopicRequest;
import io.brook.protocol.v1.ErrorCode;
import io.brook.protocol.v1.FetchPartition;
import io.brook.protocol.v1.FetchRequest;
import io.brook.protocol.v1.PartitionRecords;
import io.brook.protocol.v1.ProduceResponse;
import io.brook.protocol.v1.Record;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stored format versions against the real broker process (D37, D46): new batches are stored in
 * version 2; a client of the previous release, whose raw fetch does not set max_batch_version, gets
 * version 1 batches it can read; one that sets 2 gets them as stored; and a data directory written
 * before issue 25 (version 1 batches, a topic whose max.message.bytes was the per-record limit)
 * opens, reads and takes new batches.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BatchVersionsIT {
  @TempDir Path dir;

  @Test
  void aRawFetchWithoutMaxBatchVersionGetsVersion1AndOneWithVersion2GetsTheStoredBatches() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"))) {
      Wire wire = new Wire(broker.channel());
      wire.create("versions", 1);
      wire.produce("versions", 0, List.of(Wire.keyed("k", "first"), Wire.value("second")));
      wire.produceValues("versions", 0, 3, "more-");
      List<String> expected = values(wire.readAll("versions", 0));
      assertThat(expected).containsExactly("first", "second", "more-0", "more-1", "more-2");

      PartitionRecords old = rawFetch(wire, null);
      assertThat(old.getBatchesList()).hasSize(2).allSatisfy(b -> assertThat(b.byteAt(0)).isEqualTo(BatchFormat.VERSION));
      assertThat(decode(old)).isEqualTo(expected);
      assertThat(rawFetch(wire, 1).getBatchesList()).isEqualTo(old.getBatchesList());

      PartitionRecords current = rawFetch(wire, 2);
      assertThat(current.getBatchesList()).hasSize(2)
          .allSatisfy(b -> assertThat(b.byteAt(0)).isEqualTo(BatchFormat.VERSION_2));
      assertThat(decode(current)).isEqualTo(expected);
      assertThat(current.getNextOffset()).isEqualTo(old.getNextOffset()).isEqualTo(5);
    }
  }

  @Test
  void aDataDirectoryWrittenBeforeIssue25OpensReadsAndTakesNewBatches() throws Exception {
    Path data = dir.resolve("old-data");
    writeOldTopic(data);
    try (BrokerProcess broker = BrokerProcess.start(data)) {
      assertThat(broker.currentStartLog()).contains("Topic legacy: metadata migrated to the config names of issue 25");
      Wire wire = new Wire(broker.channel());
      assertThat(values(wire.readAll("legacy", 0))).containsExactly("old-0", "old-1", "old-2");
      var config = wire.admin.describeTopic(DescribeTopicRequest.newBuilder().setName("legacy").build())
          .getTopic().getConfigMap();
      assertThat(config).containsEntry("max.record.bytes", "2000").containsEntry("max.message.bytes", "1048588");

      ProduceResponse tooLarge = wire.produce("legacy", 0, List.of(Wire.value("x".repeat(2001))));
      assertThat(tooLarge.getResults(0).getErrorCode()).isEqualTo(ErrorCode.ERROR_CODE_RECORD_TOO_LARGE);
      assertThat(tooLarge.getResults(0).getErrorMessage()).contains("(max.record.bytes)");
      wire.produceValues("legacy", 0, 2, "new-");

      assertThat(values(wire.readAll("legacy", 0))).containsExactly("old-0", "old-1", "old-2", "new-0", "new-1");
      PartitionRecords stored = rawFetch(wire, "legacy", 2);
      assertThat(stored.getBatchesList()).extracting(b -> (int) b.byteAt(0)).containsExactly(1, 1, 2);
      assertThat(rawFetch(wire, "legacy", null).getBatchesList()).extracting(b -> (int) b.byteAt(0))
          .containsExactly(1, 1, 1);
    }
    try (BrokerProcess again = BrokerProcess.start(data)) { // recovery ends on a version 2 batch now
      assertThat(again.currentStartLog()).doesNotContain("metadata migrated"); // once
      assertThat(values(new Wire(again.channel()).readAll("legacy", 0)))
          .containsExactly("old-0", "old-1", "old-2", "new-0", "new-1");
    }
  }

  @Test
  void defaultMaxMessageBytesSetAloneTakesKafkasMeaningAndTheLogNamesTheRecordLimit() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("alone"), "--set", "default.max.message.bytes=5000")) {
      assertThat(broker.currentStartLog()).contains("default.max.message.bytes=5000 (flag) now has Kafka's meaning",
          "default.max.record.bytes (still 1048576)");
      var config = new Wire(broker.channel()).create("defaults", 1).getConfigMap();
      assertThat(config).containsEntry("max.message.bytes", "5000").containsEntry("max.record.bytes", "1048576");
    }
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("both"), "--set", "default.max.message.bytes=5000",
        "--set", "default.max.record.bytes=300")) {
      assertThat(broker.currentStartLog()).doesNotContain("now has Kafka's meaning");
      var config = new Wire(broker.channel()).create("defaults", 1).getConfigMap();
      assertThat(config).containsEntry("max.message.bytes", "5000").containsEntry("max.record.bytes", "300");
    }
  }

  /** A topic as the broker before issue 25 left it: its metadata file and version 1 batches in Chronicle. */
  private static void writeOldTopic(Path data) throws Exception {
    Path topic = Files.createDirectories(data.resolve("topics").resolve("legacy"));
    Files.writeString(topic.resolve("topic.properties"), """
        #Brook topic metadata: do not edit while the broker runs
        config.max.message.bytes=2000
        created.at.ms=1795000000000
        id=0b3c2f2e-8f4e-4f7e-9c1a-3d2b1a0f9e8d
        name=legacy
        partition.0.segment.roll=1h
        partitions=1
        """);
    long now = System.currentTimeMillis();
    try (SingleChronicleQueue q = SingleChronicleQueueBuilder.binary(topic.resolve("0"))
        .rollCycle(ChronicleRolls.of(SegmentRoll.HOUR)).build(); ExcerptAppender appender = q.createAppender()) {
      List<AppendBatch> batches = List.of(
          AppendBatch.of(List.of(rec("old-0", now - 10), rec("old-1", now - 9)), now - 5),
          new AppendBatch(List.of(rec("old-2", now - 8)), now - 4, false, new ProducerStamp(3, (short) 0, 0)));
      long base = 0;
      long position = 0;
      long runningMax = Long.MIN_VALUE;
      for (AppendBatch b : batches) {
        ByteWriter out = new ByteWriter(256);
        BatchHeader h = Version1Encoder.encode(out, b, base, runningMax, position, new CRC32C());
        try (DocumentContext dc = appender.writingDocument()) {
          dc.wire().bytes().write(out.array(), 0, out.position());
        }
        base = h.nextOffset();
        position = h.endLogPosition();
        runningMax = h.runningMaxTimestamp();
      }
    }
  }

  private static LogRecord rec(String value, long ts) {
    return LogRecord.of(null, value.getBytes(StandardCharsets.UTF_8), ts, List.of());
  }

  private static PartitionRecords rawFetch(Wire wire, Integer maxBatchVersion) {
    return rawFetch(wire, "versions", maxBatchVersion);
  }

  /** A raw fetch of partition 0 from offset 0; {@code maxBatchVersion} null leaves the field unset, as old clients do. */
  private static PartitionRecords rawFetch(Wire wire, String topic, Integer maxBatchVersion) {
    FetchRequest.Builder request = FetchRequest.newBuilder().setRawBatches(true).setMaxRecords(1000)
        .setMaxBytes(1 << 20).addPartitions(FetchPartition.newBuilder().setTopic(topic).setPartition(0));
    if (maxBatchVersion != null) {
      request.setMaxBatchVersion(maxBatchVersion);
    }
    return wire.fetch.fetch(request.build()).getPartitions(0);
  }

  private static List<String> decode(PartitionRecords pr) {
    BatchReader reader = new BatchReader();
    List<String> out = new ArrayList<>();
    for (ByteString batch : pr.getBatchesList()) {
      byte[] b = batch.toByteArray();
      reader.wrap(b, 0, b.length);
      while (reader.next()) {
        out.add(new String(reader.copyValue(), StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  private static List<String> values(List<Record> records) {
    return records.stream().map(r -> r.getValue().toStringUtf8()).toList();
  }
}
