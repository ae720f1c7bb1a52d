package io.brook.broker.groups;

import io.brook.broker.disk.DiskGuard;
import io.brook.broker.disk.DiskLimits;
import io.brook.broker.storage.MemoryLog;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.topics.TopicConfig;
import io.brook.broker.topics.TopicManager;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * One offset-mode group, "g", over in-memory topics and a clock the test moves ({@link #nowMs}):
 * what the OffsetGroup tests drive joins, heartbeats, commits and ticks against.
 */
abstract class OffsetGroupTestBase {
  @TempDir Path dir;
  final AtomicLong nowMs = new AtomicLong(1_000_000);
  TopicManager topics;
  GroupManager groups;
  OffsetGroup group;

  /** The topics that exist before the group: name → partitions. */
  abstract Map<String, Integer> topicsToCreate();

  @BeforeEach
  void startGroup() {
    InstantSource clock = () -> Instant.ofEpochMilli(nowMs.get());
    topics = new TopicManager(dir, TopicConfig.defaults(-1, -1, SegmentRoll.HOUR, 1 << 20), 1, MemoryLog::open, clock);
    topics.recover();
    new TreeMap<>(topicsToCreate()).forEach((name, partitions) -> topics.create(name, partitions, Map.of()));
    DiskGuard disk = new DiskGuard(() -> Long.MAX_VALUE, new DiskLimits(0, 0, 0, 60_000), () -> 0,
        (from, to, message) -> { }, dir.toString());
    groups = new GroupManager(dir, new GroupContext(topics, clock, Runnable::run, 100, 100_000, 3000, disk),
        MemoryLog::open, 100_000);
    groups.recover();
    group = groups.offsetGroup("g", true);
  }

  @AfterEach
  void stopGroup() {
    groups.close();
    topics.close();
  }
}
