package io.brook.broker.topics;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.records.IncomingBatch;
import io.brook.broker.records.LogRecord;
import io.brook.broker.storage.MemoryLog;
import io.brook.broker.storage.SegmentRoll;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The per-record limit is max.record.bytes, and max.message.bytes has Kafka's meaning (D46): a topic
 * written before issue 25, whose max.message.bytes was the per-record limit, is read with it as
 * max.record.bytes, and its file is migrated once.
 */
class TopicConfigNamesTest {
  /** topic.properties as TopicMetadata wrote it before issue 25 (the per-record limit set to 2000). */
  private static final String OLD_FILE = """
      #Brook topic metadata: do not edit while the broker runs
      #Fri Nov 27 08:00:00 UTC 2026
      config.max.message.bytes=2000
      config.retention.ms=3600000
      created.at.ms=1795000000000
      id=0b3c2f2e-8f4e-4f7e-9c1a-3d2b1a0f9e8d
      name=legacy
      partition.0.segment.roll=1h
      partitions=1
      """;

  @TempDir Path root;
  private final List<TopicManager> opened = new ArrayList<>();

  private TopicManager open() {
    TopicManager m = new TopicManager(root, TopicConfig.defaults(-1, -1, SegmentRoll.HOUR, 1 << 20), 1,
        MemoryLog::open, InstantSource.system());
    opened.add(m);
    m.recover();
    return m;
  }

  @AfterEach
  void closeAll() {
    opened.forEach(TopicManager::close);
  }

  private void writeOldTopic() throws IOException {
    Path dir = Files.createDirectories(root.resolve("topics").resolve("legacy"));
    Files.writeString(dir.resolve(TopicMetadata.FILE), OLD_FILE);
  }

  @Test
  void aTopicWrittenBeforeTheRenameKeepsItsPerRecordLimitAsMaxRecordBytes() throws IOException {
    writeOldTopic();
    TopicConfig c = open().get("legacy").config();
    assertThat(c.maxRecordBytes()).isEqualTo(2000);
    assertThat(c.maxMessageBytes()).isEqualTo(TopicConfig.DEFAULT_MAX_MESSAGE_BYTES);
    assertThat(c.retentionMs()).isEqualTo(3600000);
    assertThat(c.overrides()).containsOnlyKeys(TopicConfig.MAX_RECORD_BYTES, TopicConfig.RETENTION_MS);

    String migrated = Files.readString(root.resolve("topics/legacy").resolve(TopicMetadata.FILE));
    assertThat(migrated).contains("config.max.record.bytes=2000", "config.names=2")
        .doesNotContain("config.max.message.bytes");
  }

  @Test
  void theMigrationHappensOnceAndKeepsTheLimitAcrossRestarts() throws IOException {
    writeOldTopic();
    open().close();
    opened.clear();
    TopicManager again = open();
    assertThat(again.get("legacy").config().maxRecordBytes()).isEqualTo(2000);
    // the limit still applies to a gRPC record, under its new name
    Topic legacy = again.get("legacy");
    BatchValidator validator = new BatchValidator(1000);
    BrokerException e = org.assertj.core.api.Assertions.catchThrowableOfType(BrokerException.class,
        () -> validator.validate(legacy, "legacy-0", new IncomingBatch.Listed(List.of(record(2001)))));
    assertThat(e.error()).isEqualTo(BrokerError.RECORD_TOO_LARGE);
    assertThat(e.getMessage()).contains("takes at most 2000 (max.record.bytes)");
  }

  @Test
  void kafkasMaxMessageBytesSetOnANewTopicIsNotMigratedOnRestart() {
    TopicManager m = open();
    m.create("kafka", 1, Map.of(TopicConfig.MAX_MESSAGE_BYTES, "5000", TopicConfig.MAX_RECORD_BYTES, "300"));
    m.close();
    opened.clear();
    TopicConfig c = open().get("kafka").config();
    assertThat(c.maxMessageBytes()).isEqualTo(5000);
    assertThat(c.maxRecordBytes()).isEqualTo(300);
  }

  @Test
  void bothLimitsAreDescribedEachUnderItsName() {
    Map<String, String> effective = open().create("t", 1, Map.of(TopicConfig.MAX_RECORD_BYTES, "300")).config()
        .effective();
    assertThat(effective).containsEntry("max.record.bytes", "300").containsEntry("max.message.bytes", "1048588");
  }

  private static LogRecord record(int valueBytes) {
    return new LogRecord(-1, IncomingBatch.Listed.NO_TIMESTAMP, null, new byte[valueBytes], List.of());
  }
}
