package io.brook.broker.groups;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.delivery.AckMember;
import io.brook.broker.delivery.Delivery;
import io.brook.broker.disk.DiskGuard;
import io.brook.broker.disk.DiskLimits;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.records.LogRecord;
import io.brook.broker.storage.MemoryLog;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.topics.Partition;
import io.brook.broker.topics.TopicConfig;
import io.brook.broker.topics.TopicManager;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Settling names offset ranges: what a range outside the window answers, and what it costs. */
class AckGroupSettleTest {
  @TempDir Path dir;
  TopicManager topics;
  GroupManager groups;
  AckGroup group;
  AckMember member;
  final List<Delivery> delivered = Collections.synchronizedList(new ArrayList<>());

  @BeforeEach
  void setUp() {
    topics = new TopicManager(dir, TopicConfig.defaults(-1, -1, SegmentRoll.HOUR, 1 << 20), 1, MemoryLog::open,
        InstantSource.system());
    topics.recover();
    Partition p = topics.create("t", 1, Map.of()).partition(0);
    List<LogRecord> records = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      records.add(LogRecord.of(null, new byte[] {(byte) i}, -1, List.of()));
    }
    io.brook.broker.topics.Appends.append(p, records);
    // A disk that never fills; dispatch runs on the calling thread: deliveries are there when connect returns.
    DiskGuard disk = new DiskGuard(() -> Long.MAX_VALUE, new DiskLimits(0, 0, 0, 60_000), () -> 0,
        (from, to, message) -> { }, dir.toString());
    groups = new GroupManager(dir, new GroupContext(topics, InstantSource.system(), Runnable::run, 100, 100_000,
        3000, disk), MemoryLog::open, 100_000);
    groups.recover();
    groups.create("g", GroupMode.ACK, Map.of("auto.offset.reset", "earliest", "max.unsettled.per.partition", "6"));
    group = groups.ackGroup("g", false);
    member = group.connect("m", List.of("t"), new io.brook.broker.delivery.CollectingSink(delivered::addAll), 1000,
        1 << 20, "test", null);
  }

  @AfterEach
  void tearDown() {
    groups.close();
    topics.close();
  }

  private static Settlement.Range range(long first, long last) {
    return new Settlement.Range("t", 0, first, last);
  }

  @Test
  void rangesAroundTheWindowAnswerSettledBelowAndNotDeliveredAbove() {
    assertThat(delivered).hasSize(6); // the window (max.unsettled.per.partition): offsets 0..5
    assertThat(group.settle(member, new Settlement(List.of(range(0, 999_999)), List.of(), List.of())))
        .extracting(f -> f.first() + ".." + f.last() + " " + f.error())
        .containsExactly("6..999999 " + BrokerError.NOT_LEASED);
    assertThat(delivered).hasSize(10); // the acks made room: 6..9 went out

    // 0..5 settled (below the window now), 6..9 acked by this call, 10.. never delivered.
    assertThat(group.settle(member, new Settlement(List.of(range(0, 999_999)), List.of(), List.of())))
        .extracting(f -> f.first() + ".." + f.last() + " " + f.error())
        .containsExactly("0..5 " + BrokerError.ALREADY_SETTLED, "10..999999 " + BrokerError.NOT_LEASED);
    assertThat(group.committed().get(new TopicPartition("t", 0)).offset()).isEqualTo(10);
  }

  /** 20000 ranges of a million offsets each: checked against the 6-offset window, not offset by offset. */
  @Test
  @Timeout(10)
  void manyHugeRangesCostTheWindowNotTheirSpan() {
    List<Settlement.Range> ranges = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      ranges.add(range(0, 999_999));
    }
    List<Settlement.Failure> failures = group.settle(member, new Settlement(ranges, List.of(), List.of()));
    assertThat(failures).hasSize(2 * 20_000 - 1); // the first acks 0..5; each later one finds them settled
  }
}
