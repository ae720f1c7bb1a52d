package io.brook.broker.topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.records.LogRecord;
import io.brook.broker.storage.ManualClock;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.storage.chronicle.ChronicleLog;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A partition's waiters and what it answers once its topic is deleted. */
class PartitionTest {
  @TempDir Path dir;
  TopicManager topics;

  @BeforeEach
  void open() {
    topics = new TopicManager(dir, TopicConfig.defaults(-1, -1, SegmentRoll.HOUR, 1 << 20), 1, ChronicleLog::open,
        InstantSource.system());
    topics.recover();
  }

  @AfterEach
  void close() {
    topics.close();
  }

  static List<LogRecord> one() {
    return List.of(LogRecord.of(null, new byte[] {1}, -1, List.of()));
  }

  /**
   * A writer killed after Chronicle completed a batch's document, before it counted it (see
   * ChronicleLogTest): the batch is in the log after the restart, and its producer's retry - never
   * answered - is recognized, not written a second time at the same offset (CrashIT, offset 1419).
   */
  @Test
  @org.junit.jupiter.api.Timeout(value = 90, unit = java.util.concurrent.TimeUnit.SECONDS)
  void theRetryOfABatchCompletedByAKilledWriterIsAnsweredAsADuplicate() throws Exception {
    long t0 = 1_763_800_000_000L;
    topics.close();
    TopicConfig oneSecond = TopicConfig.defaults(-1, -1, SegmentRoll.ONE_SECOND, 1 << 20);
    topics = new TopicManager(dir, oneSecond, 1, ChronicleLog::open, new ManualClock(t0));
    topics.recover();
    topics.create("k", 1, Map.of());
    topics.close();
    // 3 batches, then the producer's batch (id 7, epoch 0, sequence 0) completed alone in a new segment
    io.brook.broker.storage.chronicle.HaltAfterCompletingAppend.runInChild(dir.resolve("topics").resolve("k").resolve("0"), 3,
        SegmentRoll.ONE_SECOND, t0, t0 + 1000);

    ManualClock later = new ManualClock(t0 + 5000);
    topics = new TopicManager(dir, oneSecond, 1, ChronicleLog::open, later);
    topics.recover();
    Partition p = topics.get("k").partition(0);
    assertThat(p.endOffset()).isEqualTo(4);
    Partition.IdempotentAppend retry = p.appendIdempotent(Appends.valid(p, List.of(LogRecord.of(null,
        "orphan".getBytes(), t0, List.of()))), later.millis(), new io.brook.broker.records.ProducerStamp(7, (short) 0, 0));
    assertThat(retry.duplicate()).isTrue();
    assertThat(retry.result().baseOffset()).isEqualTo(3);
    Partition.IdempotentAppend next = p.appendIdempotent(Appends.valid(p, one()), later.millis(),
        new io.brook.broker.records.ProducerStamp(7, (short) 0, 1));
    assertThat(next.duplicate()).isFalse();
    assertThat(next.result().baseOffset()).isEqualTo(4);
  }

  @Test
  void aFailingWaiterNeitherStarvesTheOthersNorFailsTheAppend() {
    Partition p = topics.create("w", 1, Map.of()).partition(0);
    AtomicInteger ran = new AtomicInteger();
    p.whenDataBeyond(0, () -> {
      throw new IllegalStateException("executor shut down");
    });
    p.whenDataBeyond(0, ran::incrementAndGet);
    assertThat(Appends.append(p, one()).baseOffset()).isZero();
    assertThat(ran.get()).isEqualTo(1);
    assertThat(p.waiterCount()).isZero();
  }

  @Test
  void aDeletedTopicsPartitionAnswersUnknownTopicAndRunsNewWaitersAtOnce() {
    Partition p = topics.create("gone", 1, Map.of()).partition(0);
    Appends.append(p, one());
    AtomicInteger woken = new AtomicInteger();
    p.whenDataBeyond(1, woken::incrementAndGet); // a caught-up tail
    topics.delete("gone");
    assertThat(woken.get()).as("waiters are woken by the delete").isEqualTo(1);
    for (Runnable call : List.<Runnable>of(() -> p.read(0, 10, 100), () -> p.read(1, 10, 100),
        () -> p.append(Appends.valid(p, one()), 0), () -> p.offsetForTimestamp(0), p::flush)) {
      assertThatThrownBy(call::run).isInstanceOfSatisfying(BrokerException.class,
          e -> assertThat(e.error()).isEqualTo(BrokerError.UNKNOWN_TOPIC));
    }
    assertThat(p.whenDataBeyond(1, woken::incrementAndGet)).as("no data will ever come: run at once").isFalse();
    assertThat(woken.get()).isEqualTo(2);
    assertThat(p.waiterCount()).isZero();
  }

  /** Only what was checked against a partition's own topic is appended there: another's limits may be looser. */
  @Test
  void aBatchValidatedForAnotherTopicIsNotAppended() {
    Partition loose = topics.create("loose", 1, Map.of("max.record.bytes", "1000000")).partition(0);
    Partition strict = topics.create("strict", 1, Map.of("max.record.bytes", "10")).partition(0);
    BatchValidator.ValidatedBatch big = Appends.valid(loose, List.of(LogRecord.of(null, new byte[100], -1,
        List.of())));
    assertThatThrownBy(() -> strict.append(big, System.currentTimeMillis()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("validated for topic loose");
    assertThat(strict.endOffset()).isZero();
  }
}
