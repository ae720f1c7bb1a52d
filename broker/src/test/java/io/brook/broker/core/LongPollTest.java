package io.brook.broker.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.api.Draining;
import io.brook.broker.records.LogRecord;
import io.brook.broker.storage.MemoryLog;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.topics.Appends;
import io.brook.broker.topics.Partition;
import io.brook.broker.topics.TopicConfig;
import io.brook.broker.topics.TopicManager;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Long polls answer exactly once and leave no waiter behind, however they end. */
class LongPollTest {
  @TempDir Path dir;
  TopicManager topics;
  Partition partition;
  ExecutorService reads = Executors.newFixedThreadPool(2);
  ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  Draining draining = new Draining();

  @BeforeEach
  void setUp() {
    topics = new TopicManager(dir, TopicConfig.defaults(-1, -1, SegmentRoll.HOUR, 1 << 20), 1, MemoryLog::open,
        InstantSource.system());
    topics.recover();
    partition = topics.create("t", 1, Map.of()).partition(0);
  }

  @AfterEach
  void tearDown() {
    reads.shutdownNow();
    timer.shutdownNow();
    topics.close();
  }

  @Test
  void pollsThatTimeOutOnAnIdlePartitionLeaveNoWaiters() throws Exception {
    int polls = 2000;
    CountDownLatch answered = new CountDownLatch(polls);
    for (int i = 0; i < polls; i++) {
      poll(answered::countDown, timer, i % 3).start();
    }
    assertThat(answered.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(partition.waiterCount()).isZero();
  }

  /** The worst interleaving, made certain: the timeout fires before start() has returned. */
  @Test
  void aTimeoutFiringDuringStartLeavesNoWaiter() throws Exception {
    ScheduledExecutorService inline = new java.util.concurrent.ScheduledThreadPoolExecutor(1) {
      @Override
      public java.util.concurrent.ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
        if (delay == 0) {
          task.run();
        }
        return super.schedule(delay == 0 ? () -> {} : task, delay, unit);
      }
    };
    try {
      CountDownLatch answered = new CountDownLatch(100);
      for (int i = 0; i < 100; i++) {
        poll(answered::countDown, inline, 0).start();
      }
      assertThat(answered.await(30, TimeUnit.SECONDS)).isTrue();
      assertThat(partition.waiterCount()).isZero();
    } finally {
      inline.shutdownNow();
    }
  }

  @Test
  void anAppendAnswersEveryWaitingPollOnceAndClearsThem() throws Exception {
    int polls = 500;
    CountDownLatch answered = new CountDownLatch(polls);
    int[] answers = new int[1];
    for (int i = 0; i < polls; i++) {
      poll(() -> {
        synchronized (answers) {
          answers[0]++;
        }
        answered.countDown();
      }, timer, 60_000).start();
    }
    assertThat(partition.waiterCount()).isEqualTo(polls);
    Appends.append(partition, List.of(LogRecord.of(null, new byte[] {1}, -1, List.of())));
    assertThat(answered.await(30, TimeUnit.SECONDS)).isTrue();
    Thread.sleep(100);
    synchronized (answers) {
      assertThat(answers[0]).isEqualTo(polls);
    }
    assertThat(partition.waiterCount()).isZero();
  }

  @Test
  void aCancelledPollRemovesItsWaiter() {
    LongPoll poll = poll(() -> {}, timer, 60_000);
    poll.start();
    assertThat(partition.waiterCount()).isEqualTo(1);
    poll.cancel();
    assertThat(partition.waiterCount()).isZero();
  }

  private LongPoll poll(Runnable answer, ScheduledExecutorService timer, long waitMs) {
    return new LongPoll(answer, reads, timer, draining, List.of(partition), List.of(0L), waitMs);
  }
}
