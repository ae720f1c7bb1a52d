package io.brook.broker.groups;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.disk.DiskGuard;
import io.brook.broker.disk.DiskLimits;
import io.brook.broker.storage.MemoryLog;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.topics.TopicConfig;
import io.brook.broker.topics.TopicManager;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A held heartbeat keeps its member alive while its call is open: the group's tick, which both
 * answers it and expires members, may run late (one timer thread for every group), and a member
 * whose heartbeat was waiting at the broker all that time must not be removed for it.
 */
class OffsetGroupHeldHeartbeatTest {
  static final long SESSION_MS = 6_000;

  @TempDir Path dir;
  final AtomicLong nowMs = new AtomicLong(1_000_000);
  TopicManager topics;
  GroupManager groups;
  OffsetGroup group;

  @BeforeEach
  void setUp() {
    InstantSource clock = () -> Instant.ofEpochMilli(nowMs.get());
    topics = new TopicManager(dir, TopicConfig.defaults(-1, -1, SegmentRoll.HOUR, 1 << 20), 1, MemoryLog::open, clock);
    topics.recover();
    topics.create("t", 2, Map.of());
    DiskGuard disk = new DiskGuard(() -> Long.MAX_VALUE, new DiskLimits(0, 0, 0, 60_000), () -> 0,
        (from, to, message) -> { }, dir.toString());
    groups = new GroupManager(dir, new GroupContext(topics, clock, Runnable::run, 100, 100_000, 3000, disk),
        MemoryLog::open, 100_000);
    groups.recover();
    group = groups.offsetGroup("g", true);
  }

  @AfterEach
  void tearDown() {
    groups.close();
    topics.close();
  }

  @Test
  void aMemberWhoseHeartbeatIsHeldIsNotExpiredByALateTick() throws Exception {
    JoinResult joined = group.join(new JoinRequest("", "c", "127.0.0.1", List.of("t"),
        SESSION_MS, SESSION_MS, null)).get();
    CompletableFuture<Boolean> held = group.heartbeat(joined.memberId(), joined.generation(), 60_000, null);
    assertThat(held).as("held until its wait ends").isNotDone();

    nowMs.addAndGet(SESSION_MS + 2_000); // the tick comes late: past the session of the last heartbeat
    group.tick(nowMs.get());

    assertThat(held).as("answered once its wait ended").isCompletedWithValue(false);
    assertThat(group.memberCount()).as("the member, waiting at the broker all along, is still there").isEqualTo(1);

    nowMs.addAndGet(SESSION_MS + 1); // and no heartbeat since the answer: now its session has run out
    group.tick(nowMs.get());
    assertThat(group.memberCount()).isZero();
  }
}
