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
import io.brook.broker.groups.Settlement;
import io.brook.broker.records.LogRecord;
import io.brook.broker.storage.MemoryLog;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.topics.Appends;
import io.brook.broker.topics.TopicConfig;
import io.brook.broker.topics.TopicManager;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Poll-style ack consumers (D70) on the real groups core: receives lease records from the group's pool
 * and wait without a thread; settles by name; leases and memberships run out; an abandoned receive gives
 * its records back.
 */
class AckPollServiceTest {
  static final long ACK_TIMEOUT_MS = 30_000;
  static final long SESSION_MS = 8_000;

  @TempDir Path dir;
  TopicManager topics;
  GroupManager manager;
  AckPollService polls;
  ScheduledExecutorService timer;
  final AtomicLong now = new AtomicLong(1_000_000);

  @BeforeEach
  void setUp() {
    topics = new TopicManager(dir, TopicConfig.defaults(-1, -1, SegmentRoll.HOUR, 1 << 20), 1, MemoryLog::open,
        InstantSource.system());
    topics.recover();
    topics.create("t", 1, Map.of());
    topics.create("empty", 1, Map.of());
    append("t", 10);
    DiskGuard disk = new DiskGuard(() -> Long.MAX_VALUE, new DiskLimits(0, 0, 0, 60_000), () -> 0,
        (from, to, message) -> { }, dir.toString());
    InstantSource clock = () -> Instant.ofEpochMilli(now.get());
    // Dispatch runs on the calling thread: a receive's records are there when it returns.
    manager = new GroupManager(dir, new GroupContext(topics, clock, Runnable::run, 1000, 60_000, 3000, disk),
        MemoryLog::open, 100_000);
    manager.recover();
    manager.create("g", GroupMode.ACK, Map.of("auto.offset.reset", "earliest", "ack.timeout.ms",
        Long.toString(ACK_TIMEOUT_MS), "share.session.timeout.ms", Long.toString(SESSION_MS)));
    timer = Executors.newSingleThreadScheduledExecutor();
    polls = new AckPollService(manager, Runnable::run, timer, 30_000, 4 << 20);
  }

  @AfterEach
  void tearDown() {
    timer.shutdownNow();
    manager.close();
    topics.close();
  }

  void append(String topic, int n) {
    List<LogRecord> records = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      records.add(LogRecord.of(null, new byte[] {(byte) i}, -1, List.of()));
    }
    Appends.append(topics.get(topic).partition(0), records);
  }

  AckPollService.Pending start(String consumer, String topic, int max, long waitMs) {
    return polls.receive(new PollReceive("g", consumer, List.of(topic), max, 0, waitMs, "test", null));
  }

  List<Delivery> receive(String consumer, int max) throws Exception {
    return start(consumer, "t", max, 0).result().get(5, TimeUnit.SECONDS).records();
  }

  static List<Long> offsets(List<Delivery> ds) {
    return ds.stream().map(d -> d.record().offset()).toList();
  }

  static Settlement.Range range(long first, long last) {
    return new Settlement.Range("t", 0, first, last);
  }

  static Settlement acks(long first, long last) {
    return new Settlement(List.of(range(first, last)), List.of(), List.of());
  }

  static Settlement nack(long offset, long delayMs, boolean reject) {
    return new Settlement(List.of(), List.of(new Settlement.Nack(range(offset, offset), delayMs, reject)), List.of());
  }

  void tick(long advanceMs) {
    now.addAndGet(advanceMs);
    manager.tick();
  }

  @Test
  void aReceiveLeasesRecordsUntilTheAckTimeoutAndAnAckSettlesThem() throws Exception {
    List<Delivery> got = receive("c1", 4);
    assertThat(offsets(got)).containsExactly(0L, 1L, 2L, 3L);
    assertThat(got).allSatisfy(d -> {
      assertThat(d.attempt()).isEqualTo(1);
      assertThat(d.leaseDeadlineMs()).isEqualTo(now.get() + ACK_TIMEOUT_MS);
    });
    assertThat(polls.settle("g", "c1", acks(0, 3), null)).isEmpty();
    assertThat(manager.ackGroup("g", false).committed().values().iterator().next().offset()).isEqualTo(4);
    // The next receive asks for as many more as it names, beside what the consumer still holds.
    assertThat(offsets(receive("c1", 2))).containsExactly(4L, 5L);
    assertThat(offsets(receive("c1", 2))).containsExactly(6L, 7L);
  }

  @Test
  void aNackedRecordComesAgainAfterItsDelayAsTheNextAttempt() throws Exception {
    receive("c1", 1);
    assertThat(polls.settle("g", "c1", nack(0, 1000, false), null)).isEmpty();
    assertThat(offsets(receive("c1", 1))).containsExactly(1L); // 0 is not due yet
    tick(1000);
    List<Delivery> again = receive("c2", 1);
    assertThat(offsets(again)).containsExactly(0L);
    assertThat(again.get(0).attempt()).isEqualTo(2);
  }

  @Test
  void anExpiredLeaseGoesToAnotherConsumerAndItsLateAckFails() throws Exception {
    manager.create("short", GroupMode.ACK, Map.of("auto.offset.reset", "earliest", "ack.timeout.ms", "1000"));
    polls.receive(new PollReceive("short", "c1", List.of("t"), 2, 0, 0, "test", null)).result().get();
    tick(1001);
    List<Delivery> again = polls.receive(new PollReceive("short", "c2", List.of("t"), 2, 0, 0, "test", null))
        .result().get().records();
    assertThat(offsets(again)).containsExactly(0L, 1L);
    assertThat(again).allSatisfy(d -> assertThat(d.attempt()).isEqualTo(2));
    assertThat(polls.settle("short", "c1", acks(0, 1), null)).singleElement()
        .satisfies(f -> assertThat(f.error()).isEqualTo(BrokerError.NOT_LEASED));
    assertThat(polls.settle("short", "c2", acks(0, 1), null)).isEmpty();
  }

  @Test
  void aRejectedRecordGoesToTheDeadLetterTopic() throws Exception {
    receive("c1", 1);
    assertThat(polls.settle("g", "c1", nack(0, 0, true), null)).isEmpty();
    assertThat(topics.get("g.dlq").partition(0).endOffset()).isEqualTo(1);
  }

  @Test
  void aReceiveWaitsWithoutAThreadUntilRecordsComeOrItsWaitRunsOut() throws Exception {
    AckPollService.Pending empty = start("c1", "empty", 10, 100);
    assertThat(empty.result().get(5, TimeUnit.SECONDS).records()).isEmpty();
    AckPollService.Pending waiting = start("c1", "empty", 10, 10_000);
    assertThat(waiting.result()).isNotDone();
    append("empty", 3);
    assertThat(offsets(waiting.result().get(5, TimeUnit.SECONDS).records())).containsExactly(0L, 1L, 2L);
  }

  @Test
  void anAbandonedReceiveEndsAndGivesBackWhatItWasHandedAsNoAttempt() throws Exception {
    AckPollService.Pending waiting = start("c1", "empty", 10, 10_000);
    waiting.abandon();
    assertThat(waiting.result().get(5, TimeUnit.SECONDS).records()).isEmpty();
    append("empty", 2);
    AckPollService.Pending handed = start("c1", "empty", 10, 10_000);
    assertThat(offsets(handed.result().get(5, TimeUnit.SECONDS).records())).containsExactly(0L, 1L);
    handed.abandon(); // its answer was never written
    handed.abandon(); // once is enough
    List<Delivery> again = start("c2", "empty", 10, 0).result().get(5, TimeUnit.SECONDS).records();
    assertThat(offsets(again)).containsExactly(0L, 1L);
    assertThat(again).allSatisfy(d -> assertThat(d.attempt()).isEqualTo(1));
  }

  @Test
  void aConsumerThatStopsAskingLeavesAfterTheSessionTimeoutAndItsLeasesGoBack() throws Exception {
    receive("c1", 3);
    tick(SESSION_MS / 2);
    assertThat(polls.settle("g", "c1", acks(0, 0), null)).isEmpty(); // a settle keeps it in
    tick(SESSION_MS / 2 + 1);
    assertThat(manager.ackGroup("g", false).describe().members()).hasSize(1);
    tick(SESSION_MS / 2);
    assertThat(manager.ackGroup("g", false).describe().members()).isEmpty();
    assertThatThrownBy(() -> polls.settle("g", "c1", acks(1, 1), null)).isInstanceOfSatisfying(
        BrokerException.class, e -> assertThat(e.error()).isEqualTo(BrokerError.UNKNOWN_MEMBER_ID));
    // Its leases went back with it, well before they would have run out.
    assertThat(offsets(receive("c2", 2))).containsExactly(1L, 2L);
  }

  @Test
  void aWaitingReceiveKeepsItsConsumerIn() throws Exception {
    AckPollService.Pending waiting = start("c1", "empty", 10, 30_000);
    tick(SESSION_MS + 1);
    assertThat(manager.ackGroup("g", false).describe().members()).hasSize(1);
    assertThat(waiting.result()).isNotDone();
    waiting.abandon();
  }

  @Test
  void badRequestsAreRefusedWithBrooksErrors() throws Exception {
    assertError(() -> start("", "t", 1, 0), BrokerError.INVALID_REQUEST);
    assertError(() -> start("c", "t", AckPollService.MAX_RECORDS + 1, 0), BrokerError.INVALID_REQUEST);
    assertError(() -> start("c", "nope", 1, 0), BrokerError.UNKNOWN_TOPIC);
    assertError(() -> polls.receive(new PollReceive("g", "c", List.of("t"), 1, 0, -1, "a", null)),
        BrokerError.INVALID_REQUEST);
    assertError(() -> polls.settle("nogroup", "c", acks(0, 0), null), BrokerError.UNKNOWN_GROUP);
    assertError(() -> polls.settle("g", "stranger", acks(0, 0), null), BrokerError.UNKNOWN_MEMBER_ID);
    manager.create("offsets", GroupMode.OFFSET, Map.of());
    assertError(() -> polls.receive(new PollReceive("offsets", "c", List.of("t"), 1, 0, 0, "a", null)),
        BrokerError.INCONSISTENT_GROUP_MODE);
    receive("c1", 1);
    assertThat(polls.settle("g", "c1", acks(5, 5), null)).singleElement()
        .satisfies(f -> assertThat(f.error()).isEqualTo(BrokerError.NOT_LEASED));
    // Another principal may neither take over a consumer nor settle as it.
    assertError(() -> polls.receive(new PollReceive("g", "c2", List.of("t"), 1, 0, 0, "a", "alice")), null);
    assertError(() -> polls.settle("g", "c2", acks(1, 1), "bob"), BrokerError.NOT_OWNER);
    assertError(() -> polls.receive(new PollReceive("g", "c2", List.of("t"), 1, 0, 0, "a", "bob")),
        BrokerError.NOT_OWNER);
  }

  @Test
  void aStreamMemberAndAnHttpConsumerShareThePoolButNotANameNorTheirLeases() throws Exception {
    GroupsCoreTest.Stream streamed = new GroupsCoreTest.Stream();
    AckReceiver stream = new AckService(manager).open(new ReceiveStart("g", List.of("t"), "grpc-1", 4, 0, "test",
        null));
    stream.connect(streamed, id -> { });
    assertThat(offsets(streamed.delivered)).containsExactly(0L, 1L, 2L, 3L);
    assertThat(offsets(receive("c1", 10))).containsExactly(4L, 5L, 6L, 7L, 8L, 9L); // the rest of the pool
    assertError(() -> start("grpc-1", "t", 1, 0), BrokerError.INVALID_REQUEST);
    assertThatThrownBy(() -> new AckService(manager).open(new ReceiveStart("g", List.of("t"), "c1", 0, 0, "test",
        null)).connect(null, id -> { })).isInstanceOfSatisfying(BrokerException.class,
            e -> assertThat(e.error()).isEqualTo(BrokerError.INVALID_REQUEST));
    // Neither settles what the other holds.
    assertThat(polls.settle("g", "c1", acks(0, 0), null)).singleElement()
        .satisfies(f -> assertThat(f.error()).isEqualTo(BrokerError.NOT_LEASED));
    assertError(() -> new AckService(manager).settle("g", "c1", acks(4, 4), null), BrokerError.UNKNOWN_MEMBER_ID);
  }

  /** {@code expected} null: the call succeeds. */
  static void assertError(ThrowingCall call, BrokerError expected) throws Exception {
    if (expected == null) {
      call.run();
      return;
    }
    assertThatThrownBy(call::run).isInstanceOfSatisfying(BrokerException.class,
        e -> assertThat(e.error()).isEqualTo(expected));
  }

  interface ThrowingCall {
    void run() throws Exception;
  }
}
