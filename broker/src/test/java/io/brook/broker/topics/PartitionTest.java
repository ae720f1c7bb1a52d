package io.brook.broker.topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.storage.LogFactory;
import io.brook.broker.storage.LogRecord;
import io.brook.broker.storage.SegmentRoll;
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
    topics = new TopicManager(dir, TopicConfig.defaults(-1, -1, SegmentRoll.HOUR, 1 << 20), 1, LogFactory.CHRONICLE,
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

  @Test
  void aFailingWaiterNeitherStarvesTheOthersNorFailsTheAppend() {
    Partition p = topics.create("w", 1, Map.of()).partition(0);
    AtomicInteger ran = new AtomicInteger();
    p.whenDataBeyond(0, () -> {
      throw new IllegalStateException("executor shut down");
    });
    p.whenDataBeyond(0, ran::incrementAndGet);
    assertThat(p.append(one(), System.currentTimeMillis(), 10).baseOffset()).isZero();
    assertThat(ran.get()).isEqualTo(1);
    assertThat(p.waiterCount()).isZero();
  }

  @Test
  void aDeletedTopicsPartitionAnswersUnknownTopicAndRunsNewWaitersAtOnce() {
    Partition p = topics.create("gone", 1, Map.of()).partition(0);
    p.append(one(), System.currentTimeMillis(), 10);
    AtomicInteger woken = new AtomicInteger();
    p.whenDataBeyond(1, woken::incrementAndGet); // a caught-up tail
    topics.delete("gone");
    assertThat(woken.get()).as("waiters are woken by the delete").isEqualTo(1);
    for (Runnable call : List.<Runnable>of(() -> p.read(0, 10, 100), () -> p.read(1, 10, 100),
        () -> p.append(one(), 0, 10), () -> p.offsetForTimestamp(0), p::flush)) {
      assertThatThrownBy(call::run).isInstanceOfSatisfying(BrokerException.class,
          e -> assertThat(e.error()).isEqualTo(BrokerError.UNKNOWN_TOPIC));
    }
    assertThat(p.whenDataBeyond(1, woken::incrementAndGet)).as("no data will ever come: run at once").isFalse();
    assertThat(woken.get()).isEqualTo(2);
    assertThat(p.waiterCount()).isZero();
  }
}
