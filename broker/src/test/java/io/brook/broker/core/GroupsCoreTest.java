package io.brook.broker.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.delivery.Delivery;
import io.brook.broker.disk.DiskGuard;
import io.brook.broker.disk.DiskLimits;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.GroupContext;
import io.brook.broker.groups.GroupManager;
import io.brook.broker.groups.GroupMode;
import io.brook.broker.groups.JoinRequest;
import io.brook.broker.groups.JoinResult;
import io.brook.broker.groups.Settlement;
import io.brook.broker.records.LogRecord;
import io.brook.broker.storage.MemoryLog;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.topics.Appends;
import io.brook.broker.topics.TopicConfig;
import io.brook.broker.topics.TopicManager;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The groups and ack core, called as a second door would call it (no gRPC): its checks answer
 * Brook's errors, and the end of a stream takes back the deliveries it did not outlive (D33).
 */
class GroupsCoreTest {
  @TempDir Path dir;
  TopicManager topics;
  GroupManager manager;
  GroupService groups;
  AckService acks;

  @BeforeEach
  void setUp() {
    topics = new TopicManager(dir, TopicConfig.defaults(-1, -1, SegmentRoll.HOUR, 1 << 20), 1, MemoryLog::open,
        InstantSource.system());
    topics.recover();
    List<LogRecord> records = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      records.add(LogRecord.of(null, new byte[] {(byte) i}, -1, List.of()));
    }
    Appends.append(topics.create("t", 1, Map.of()).partition(0), records);
    DiskGuard disk = new DiskGuard(() -> Long.MAX_VALUE, new DiskLimits(0, 0, 0, 60_000), () -> 0,
        (from, to, message) -> { }, dir.toString());
    // Dispatch runs on the calling thread: deliveries are there when a call returns.
    manager = new GroupManager(dir, new GroupContext(topics, InstantSource.system(), Runnable::run, 1000, 60_000,
        3000, disk), MemoryLog::open, 100_000);
    manager.recover();
    groups = new GroupService(manager, 1000, 60_000);
    acks = new AckService(manager);
  }

  @AfterEach
  void tearDown() {
    manager.close();
    topics.close();
  }

  @Test
  void joinChecksItsRequestAndTakesTheDefaults() throws Exception {
    assertThatThrownBy(() -> groups.join("g", join(List.of("t"), 500)))
        .isInstanceOf(BrokerException.class).extracting(e -> ((BrokerException) e).error())
        .isEqualTo(BrokerError.INVALID_REQUEST);
    assertThatThrownBy(() -> groups.join("g", join(List.of(), 0)))
        .hasMessage("JoinGroup needs at least one topic");
    assertThatThrownBy(() -> groups.heartbeat("g", "m", 1, -1, null))
        .hasMessage("max_wait_ms must be >= 0 (0: answer at once), not -1");

    JoinResult joined = groups.join("g", join(List.of("t"), 0)).answer().get();
    // 0: the default session timeout (45 s), whose third is above the broker's 3 s heartbeat interval.
    assertThat(joined.heartbeatIntervalMs()).isEqualTo(3000);
    assertThat(joined.assignment()).hasSize(1);
    assertThat(groups.list()).singleElement()
        .satisfies(g -> assertThat(g.mode()).isEqualTo(GroupMode.OFFSET));
  }

  @Test
  void aStreamThatFailsBeforeItOutlivedItsDeliveriesIsNotChargedForThem() {
    assertThatThrownBy(() -> acks.open(new ReceiveStart("a", List.of("t"), "", -1, 0, "test", null)))
        .hasMessage("flow control limits must be >= 0 (0: the default)");
    groups.create("a", GroupMode.ACK, Map.of("auto.offset.reset", "earliest"), t -> true);

    Stream first = new Stream();
    AckReceiver r = acks.open(new ReceiveStart("a", List.of("t"), "", 0, 0, "test", null));
    List<String> ids = new ArrayList<>();
    r.connect(first, ids::add);
    assertThat(ids).hasSize(1);
    assertThat(first.delivered).extracting(Delivery::attempt).containsExactly(1, 1, 1);
    r.end(true, () -> { }); // reset by the client before the deliveries were written

    Stream second = new Stream();
    AckReceiver again = acks.open(new ReceiveStart("a", List.of("t"), "", 0, 0, "test", null));
    again.connect(second, id -> { });
    assertThat(second.delivered).as("the first stream's deliveries did not count")
        .extracting(Delivery::attempt).containsExactly(1, 1, 1);

    List<Settlement.Failure> failures = new ArrayList<>();
    again.settle(new Settlement(List.of(new Settlement.Range("t", 0, 0, 3)), List.of(), List.of()), failures::addAll);
    assertThat(failures).extracting(Settlement.Failure::error).containsExactly(BrokerError.NOT_LEASED);
  }

  private static JoinRequest join(List<String> topics, long sessionMs) {
    return new JoinRequest("", "c", "test", topics, sessionMs, 0, null);
  }

  /** A stream that takes everything at once (AckPollServiceTest's gRPC member too). */
  static final class Stream implements ReceiveStream {
    final List<Delivery> delivered = new ArrayList<>();

    @Override
    public long sendableBytes() {
      return Long.MAX_VALUE;
    }

    @Override
    public boolean open() {
      return true;
    }

    @Override
    public void deliver(List<Delivery> deliveries) {
      delivered.addAll(deliveries);
    }

    @Override
    public void unused() {}

    @Override
    public void replaced(BrokerException why) {}

    @Override
    public void shutDown(String why) {}
  }
}
