package io.brook.broker.topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.storage.LogFactory;
import io.brook.broker.records.LogRecord;
import io.brook.broker.storage.MemoryLog;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.storage.chronicle.ChronicleLog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Topic lifecycle on disk: create, look up, alter, grow, delete and recover. Tests that do not need
 * records to outlive a restart run against both the Chronicle and the in-memory log.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TopicManagerTest {
  static final TopicConfig DEFAULTS = TopicConfig.defaults(TopicConfig.DEFAULT_RETENTION_MS, -1, SegmentRoll.HOUR,
      1 << 20);

  enum Logs {
    CHRONICLE(ChronicleLog::open),
    MEMORY(MemoryLog::open);

    final LogFactory factory;

    Logs(LogFactory factory) {
      this.factory = factory;
    }
  }

  @TempDir Path root;
  private final List<TopicManager> opened = new ArrayList<>();

  private Path dataDir() {
    return root.resolve("data");
  }

  /** A manager on the data directory, recovered as the broker does at start. */
  private TopicManager open(Logs logs) {
    TopicManager m = new TopicManager(dataDir(), DEFAULTS, 1, logs.factory, InstantSource.system());
    opened.add(m);
    m.recover();
    return m;
  }

  @AfterEach
  void closeAll() {
    opened.forEach(TopicManager::close);
  }

  private static BrokerError errorOf(ThrowingCallable call) {
    Throwable t = org.assertj.core.api.Assertions.catchThrowable(call);
    assertThat(t).isInstanceOf(BrokerException.class);
    return ((BrokerException) t).error();
  }

  private static void append(Topic topic, int partition, String... values) {
    List<LogRecord> records = new ArrayList<>();
    for (String v : values) {
      records.add(LogRecord.of(null, v.getBytes(StandardCharsets.UTF_8), -1, List.of()));
    }
    Appends.append(topic.partition(partition), records);
  }

  private static List<String> values(Partition p) {
    return p.read(p.startOffset(), 1000, 1 << 20).records().stream()
        .map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList();
  }

  /** Every path under the test's root, relative to it. */
  private List<String> tree() throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.map(p -> root.relativize(p).toString()).sorted().toList();
    }
  }

  private List<String> children(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return List.of();
    }
    try (Stream<Path> list = Files.list(dir)) {
      return list.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @ParameterizedTest
  @EnumSource(Logs.class)
  void createdTopicsAreListedInNameOrderAndFoundByName(Logs logs) throws IOException {
    TopicManager m = open(logs);

    Topic orders = m.create("orders", 3, Map.of(TopicConfig.RETENTION_MS, "60000"));
    Topic audit = m.create("audit", 0, Map.of());

    assertThat(orders.partitionCount()).isEqualTo(3);
    assertThat(orders.config().retentionMs()).isEqualTo(60_000);
    assertThat(orders.config().overrides()).containsExactly(Map.entry(TopicConfig.RETENTION_MS, "60000"));
    assertThat(audit.partitionCount()).as("0 partitions: the default, 1").isEqualTo(1);
    assertThat(audit.config()).isEqualTo(DEFAULTS);
    assertThat(m.list()).extracting(Topic::name).containsExactly("audit", "orders");
    assertThat(m.get("orders")).isSameAs(orders);
    assertThat(orders.id()).isNotEqualTo(audit.id());
    assertThat(orders.partition(2).endOffset()).isZero();
    assertThat(errorOf(() -> m.get("missing"))).isEqualTo(BrokerError.UNKNOWN_TOPIC);
    assertThat(errorOf(() -> orders.partition(3))).isEqualTo(BrokerError.UNKNOWN_PARTITION);
    assertThat(children(dataDir().resolve("topics"))).containsExactly("audit", "orders");
  }

  @Test
  void aTopicCreatedWithoutACountGetsTheConfiguredDefault() {
    TopicManager m = new TopicManager(dataDir(), DEFAULTS, 4, MemoryLog::open, InstantSource.system());
    opened.add(m);
    m.recover();

    assertThat(m.create("defaulted", 0, Map.of()).partitionCount()).isEqualTo(4);
    assertThat(m.create("explicit", 2, Map.of()).partitionCount()).isEqualTo(2);
  }

  @Test
  void aNameOf249CharactersIsTheLongestAccepted() {
    TopicManager m = open(Logs.CHRONICLE);
    String longest = "n".repeat(249);

    m.create(longest, 1, Map.of());
    append(m.get(longest), 0, "fits");

    assertThat(values(m.get(longest).partition(0))).containsExactly("fits");
  }

  @ParameterizedTest
  @EnumSource(Logs.class)
  void invalidNamesAreRefusedBeforeAnythingTouchesTheDisk(Logs logs) throws IOException {
    TopicManager m = open(logs);
    m.create("kept", 1, Map.of());
    List<String> before = tree();

    for (String name : List.of("../etc", "a/b", ".", "..", "", "x".repeat(250), "with space", "../../kept", "a\\b")) {
      assertThatThrownBy(() -> m.create(name, 1, Map.of()))
          .as("create '%s'", name)
          .isInstanceOf(BrokerException.class)
          .hasMessageMatching(name.isEmpty() ? "a topic name is required" : "invalid topic name .*")
          .extracting(e -> ((BrokerException) e).error()).isEqualTo(BrokerError.INVALID_REQUEST);
      assertThat(errorOf(() -> m.delete(name))).as("delete '%s'", name).isEqualTo(BrokerError.INVALID_REQUEST);
      assertThat(errorOf(() -> m.addPartitions(name, 2))).as("grow '%s'", name)
          .isEqualTo(BrokerError.INVALID_REQUEST);
      assertThat(errorOf(() -> m.alterConfig(name, Map.of(TopicConfig.RETENTION_MS, "1"), List.of())))
          .as("alter '%s'", name).isEqualTo(BrokerError.INVALID_REQUEST);
    }

    assertThat(tree()).isEqualTo(before);
    assertThat(m.list()).extracting(Topic::name).containsExactly("kept");
  }

  @ParameterizedTest
  @EnumSource(Logs.class)
  void creatingAnExistingTopicIsRefusedAndKeepsTheOriginal(Logs logs) {
    TopicManager m = open(logs);
    Topic first = m.create("orders", 2, Map.of());
    append(first, 0, "a");

    assertThat(errorOf(() -> m.create("orders", 5, Map.of()))).isEqualTo(BrokerError.TOPIC_EXISTS);

    assertThat(m.get("orders")).isSameAs(first);
    assertThat(first.partitionCount()).isEqualTo(2);
    assertThat(values(first.partition(0))).containsExactly("a");
  }

  @ParameterizedTest
  @EnumSource(Logs.class)
  void badConfigOrPartitionCountAtCreateIsRefusedAndCreatesNothing(Logs logs) throws IOException {
    TopicManager m = open(logs);
    List<String> before = tree();

    assertThat(errorOf(() -> m.create("t", 1, Map.of("retention.hours", "1")))).isEqualTo(BrokerError.INVALID_REQUEST);
    assertThat(errorOf(() -> m.create("t", 1, Map.of(TopicConfig.SEGMENT_ROLL, "3h"))))
        .isEqualTo(BrokerError.INVALID_REQUEST);
    assertThat(errorOf(() -> m.create("t", -1, Map.of()))).isEqualTo(BrokerError.INVALID_REQUEST);
    assertThat(errorOf(() -> m.create("t", TopicManager.MAX_PARTITIONS + 1, Map.of())))
        .isEqualTo(BrokerError.INVALID_REQUEST);

    assertThat(tree()).isEqualTo(before);
    assertThat(m.list()).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(Logs.class)
  void alteredConfigSurvivesARestart(Logs logs) {
    TopicManager m = open(logs);
    m.create("orders", 1, Map.of(TopicConfig.SEGMENT_ROLL, "1d", TopicConfig.RETENTION_BYTES, "4096"));

    Topic altered = m.alterConfig("orders", Map.of(TopicConfig.RETENTION_MS, "1000",
        TopicConfig.TIMESTAMP_TYPE, "LogAppendTime"), List.of(TopicConfig.RETENTION_BYTES));
    assertThat(altered.config().retentionMs()).isEqualTo(1000);
    assertThat(altered.config().retentionBytes()).as("removed: back to the default").isEqualTo(-1);
    m.close();

    Topic reopened = open(logs).get("orders");
    assertThat(reopened.config().retentionMs()).isEqualTo(1000);
    assertThat(reopened.config().logAppendTime()).isTrue();
    assertThat(reopened.config().retentionBytes()).isEqualTo(-1);
    assertThat(reopened.config().segmentRoll()).isEqualTo(SegmentRoll.DAY);
    assertThat(reopened.config().overrides()).containsOnlyKeys(TopicConfig.RETENTION_MS, TopicConfig.TIMESTAMP_TYPE,
        TopicConfig.SEGMENT_ROLL);
    assertThat(reopened.partition(0).segmentRoll()).isEqualTo(SegmentRoll.DAY);
  }

  @ParameterizedTest
  @EnumSource(Logs.class)
  void segmentRollUnknownKeysAndBadValuesCannotBeAlteredAndChangeNothing(Logs logs) {
    TopicManager m = open(logs);
    m.create("orders", 1, Map.of(TopicConfig.RETENTION_MS, "5000"));

    assertThatThrownBy(() -> m.alterConfig("orders", Map.of(TopicConfig.SEGMENT_ROLL, "1d"), List.of()))
        .isInstanceOf(BrokerException.class).hasMessageContaining("segment.roll");
    assertThat(errorOf(() -> m.alterConfig("orders", Map.of(), List.of(TopicConfig.SEGMENT_ROLL))))
        .isEqualTo(BrokerError.INVALID_REQUEST);
    assertThatThrownBy(() -> m.alterConfig("orders", Map.of("retention.hours", "1"), List.of()))
        .isInstanceOf(BrokerException.class).hasMessageContaining("unknown topic config key 'retention.hours'");
    assertThat(errorOf(() -> m.alterConfig("orders", Map.of(), List.of("retention.hours"))))
        .isEqualTo(BrokerError.INVALID_REQUEST);
    assertThat(errorOf(() -> m.alterConfig("orders", Map.of(TopicConfig.RETENTION_MS, "-2"), List.of())))
        .isEqualTo(BrokerError.INVALID_REQUEST);
    assertThat(errorOf(() -> m.alterConfig("missing", Map.of(TopicConfig.RETENTION_MS, "1"), List.of())))
        .isEqualTo(BrokerError.UNKNOWN_TOPIC);
    m.close();

    Topic reopened = open(logs).get("orders");
    assertThat(reopened.config().retentionMs()).isEqualTo(5000);
    assertThat(reopened.config().segmentRoll()).isEqualTo(SegmentRoll.HOUR);
    assertThat(reopened.config().overrides()).containsOnlyKeys(TopicConfig.RETENTION_MS);
  }

  @Test
  void addedPartitionsSurviveARestartAlongsideTheOldRecords() throws IOException {
    TopicManager m = open(Logs.CHRONICLE);
    Topic t = m.create("orders", 2, Map.of());
    append(t, 1, "old");

    assertThat(m.addPartitions("orders", 5).partitionCount()).isEqualTo(5);
    append(t, 4, "new");
    assertThat(errorOf(() -> m.addPartitions("orders", 4))).as("shrink").isEqualTo(BrokerError.INVALID_REQUEST);
    assertThat(errorOf(() -> m.addPartitions("orders", 5))).as("same").isEqualTo(BrokerError.INVALID_REQUEST);
    assertThat(errorOf(() -> m.addPartitions("orders", TopicManager.MAX_PARTITIONS + 1)))
        .isEqualTo(BrokerError.INVALID_REQUEST);
    assertThat(errorOf(() -> m.addPartitions("missing", 9))).isEqualTo(BrokerError.UNKNOWN_TOPIC);
    m.close();

    Topic reopened = open(Logs.CHRONICLE).get("orders");
    assertThat(reopened.partitionCount()).isEqualTo(5);
    assertThat(values(reopened.partition(1))).containsExactly("old");
    assertThat(values(reopened.partition(4))).containsExactly("new");
    assertThat(reopened.partition(3).endOffset()).isZero();
    assertThat(children(dataDir().resolve("topics/orders")))
        .containsExactlyInAnyOrder("0", "1", "2", "3", "4", "topic.properties");
  }

  @Test
  void addedPartitionsSurviveARestartWithTheMemoryLog() {
    TopicManager m = open(Logs.MEMORY);
    m.create("orders", 1, Map.of());
    m.addPartitions("orders", 3);
    m.close();

    assertThat(open(Logs.MEMORY).get("orders").partitionCount()).isEqualTo(3);
  }

  @ParameterizedTest
  @EnumSource(Logs.class)
  void deleteRemovesTheFilesAndARecreatedTopicStartsAfresh(Logs logs) throws IOException {
    TopicManager m = open(logs);
    Topic old = m.create("orders", 2, Map.of(TopicConfig.RETENTION_MS, "1000"));
    append(old, 0, "a", "b", "c");
    m.create("other", 1, Map.of());

    m.delete("orders");

    assertThat(dataDir().resolve("topics/orders")).doesNotExist();
    assertThat(children(dataDir().resolve("trash"))).isEmpty();
    assertThat(children(dataDir().resolve("topics"))).containsExactly("other");
    assertThat(m.list()).extracting(Topic::name).containsExactly("other");
    assertThat(errorOf(() -> m.get("orders"))).isEqualTo(BrokerError.UNKNOWN_TOPIC);
    assertThat(errorOf(() -> m.delete("orders"))).isEqualTo(BrokerError.UNKNOWN_TOPIC);

    Topic again = m.create("orders", 1, Map.of());
    assertThat(again.id()).isNotEqualTo(old.id());
    assertThat(again.config()).as("the old config went with it").isEqualTo(DEFAULTS);
    assertThat(again.partition(0).startOffset()).isZero();
    assertThat(again.partition(0).endOffset()).isZero();
    append(again, 0, "fresh");
    assertThat(values(again.partition(0))).containsExactly("fresh");
    assertThat(again.partition(0).read(0, 10, 1 << 20).records().get(0).offset()).isZero();
  }

  @Test
  void aDeletedTopicStaysDeletedAfterARestart() {
    TopicManager m = open(Logs.CHRONICLE);
    append(m.create("orders", 1, Map.of()), 0, "x");
    m.delete("orders");
    m.close();

    assertThat(open(Logs.CHRONICLE).list()).isEmpty();
  }

  @Test
  void recoverSkipsNonTopicsAndClearsStagingAndTrash() throws IOException {
    TopicManager m = open(Logs.CHRONICLE);
    UUID realId = m.create("real", 1, Map.of()).id();
    append(m.get("real"), 0, "r1", "r2");
    m.close();
    // A create that crashed before its rename: a complete topic, but staged.
    Path staged = dataDir().resolve("staging").resolve(UUID.randomUUID().toString());
    new TopicMetadata(UUID.randomUUID(), "ghost", 1L, Map.of(), List.of(SegmentRoll.HOUR)).write(
        Files.createDirectories(staged));
    Files.createDirectories(staged.resolve("0"));
    // A delete that crashed before its files were removed.
    Path trashed = dataDir().resolve("trash").resolve(UUID.randomUUID().toString());
    Files.createDirectories(trashed.resolve("0"));
    Files.writeString(trashed.resolve("0/20250101.cq4"), "old data");
    // Something that is not a topic.
    Path stray = dataDir().resolve("topics/notatopic");
    Files.createDirectories(stray.resolve("0"));
    Files.writeString(stray.resolve("notes.txt"), "hello");
    Files.writeString(dataDir().resolve("topics/README"), "a file, not a directory");

    TopicManager recovered = open(Logs.CHRONICLE);

    assertThat(recovered.list()).extracting(Topic::name).containsExactly("real");
    assertThat(recovered.get("real").id()).isEqualTo(realId);
    assertThat(values(recovered.get("real").partition(0))).containsExactly("r1", "r2");
    assertThat(errorOf(() -> recovered.get("ghost"))).isEqualTo(BrokerError.UNKNOWN_TOPIC);
    assertThat(errorOf(() -> recovered.get("notatopic"))).isEqualTo(BrokerError.UNKNOWN_TOPIC);
    assertThat(dataDir().resolve("staging")).doesNotExist();
    assertThat(dataDir().resolve("trash")).doesNotExist();
    assertThat(stray.resolve("notes.txt")).as("ignored, not removed").hasContent("hello");
    assertThat(Set.copyOf(children(dataDir().resolve("topics")))).containsExactlyInAnyOrder("real", "notatopic",
        "README");
  }
}
