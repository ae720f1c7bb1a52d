package io.brook.client.it;

import static io.brook.client.it.TestTopics.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.it.BrokerProcess;
import io.brook.client.Serdes;
import io.brook.client.TopicPartition;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerConfig;
import io.brook.client.consumer.ConsumerRebalanceListener;
import io.brook.client.consumer.ConsumerRecord;
import io.brook.client.consumer.ConsumerRecords;
import io.brook.client.consumer.OffsetAndMetadata;
import io.brook.client.consumer.OffsetResetStrategy;
import io.brook.client.errors.BrookException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker is killed (SIGKILL) and started again on the same port while a group member polls.
 * Kafka's promise, checked record by record: nothing is lost, and a record is read again only when
 * it had not been committed: after the restart each partition goes on exactly from its committed
 * offset.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ConsumerRestartIT {
  static final int PARTITIONS = 2;
  static final int PER_PARTITION = 100;

  @TempDir static Path dir;
  static BrokerProcess broker;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
    TestTopics.create(broker.channel(), "orders", PARTITIONS);
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  /** The polling application: commits after each batch while allowed, and keeps a journal of what happened. */
  static final class App implements ConsumerRebalanceListener {
    final BrookConsumer<String, String> consumer;
    final List<String> journal = Collections.synchronizedList(new ArrayList<>());
    /** Every record read, in order, as "partition:offset". */
    final List<ConsumerRecord<String, String>> read = Collections.synchronizedList(new ArrayList<>());
    /** For each jump back in a partition: where it went, and the commits known at that moment. */
    final List<String> badRewinds = Collections.synchronizedList(new ArrayList<>());
    final Map<Integer, Long> lastRead = new HashMap<>();
    final Map<Integer, Long> lastCommitted = new HashMap<>();
    final Map<Integer, Long> lastAttempted = new HashMap<>();
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    /** Batches are committed only while fewer records than this were read before them. */
    volatile int commitBelow = Integer.MAX_VALUE;
    volatile boolean stop;
    volatile int assignedCount;
    volatile int lostCount;
    final Thread thread;

    App(int commitBelow) {
      this.commitBelow = commitBelow;
      consumer = new BrookConsumer<>(ConsumerConfig.builder().broker(broker.address()).groupId("restart")
          .sessionTimeout(Duration.ofSeconds(6)).autoOffsetReset(OffsetResetStrategy.EARLIEST).enableAutoCommit(false)
          .maxPollRecords(10).fetchMaxWait(Duration.ofMillis(200)).defaultApiTimeout(Duration.ofSeconds(120))
          .build(), Serdes.stringDeserializer(), Serdes.stringDeserializer());
      consumer.subscribe(List.of("orders"), this);
      thread = new Thread(this::loop, "app");
      thread.start();
    }

    private void loop() {
      try {
        while (!stop) {
          ConsumerRecords<String, String> batch = consumer.poll(Duration.ofMillis(200));
          boolean commit = read.size() < commitBelow;
          for (ConsumerRecord<String, String> r : batch) {
            check(r);
            read.add(r);
          }
          if (commit && !batch.isEmpty()) {
            Map<TopicPartition, Long> next = new HashMap<>();
            for (TopicPartition tp : batch.partitions()) {
              List<ConsumerRecord<String, String>> rs = batch.records(tp);
              next.put(tp, rs.get(rs.size() - 1).offset() + 1);
            }
            next.forEach((tp, o) -> lastAttempted.put(tp.partition(), o));
            try {
              Map<TopicPartition, OffsetAndMetadata> commits = new HashMap<>();
              next.forEach((tp, o) -> commits.put(tp, new OffsetAndMetadata(o)));
              consumer.commitSync(commits);
              next.forEach((tp, o) -> lastCommitted.put(tp.partition(), o));
            } catch (BrookException e) {
              journal.add("commit failed: " + e.reason());
            }
          }
        }
        consumer.close();
      } catch (Throwable t) {
        failure.set(t);
      }
    }

    /**
     * Offsets of a partition go up one by one (no gap: nothing lost). When they go back, it is to
     * the committed offset: at least the last commit known to have succeeded, at most the last one
     * tried (a commit may be stored even though its answer was lost with the broker).
     */
    private void check(ConsumerRecord<String, String> r) {
      Long previous = lastRead.get(r.partition());
      long expectedNext = previous == null ? 0 : previous + 1;
      if (r.offset() > expectedNext) {
        badRewinds.add("gap in partition " + r.partition() + ": " + previous + " then " + r.offset());
      } else if (r.offset() < expectedNext) {
        long low = lastCommitted.getOrDefault(r.partition(), 0L);
        long high = lastAttempted.getOrDefault(r.partition(), 0L);
        journal.add("rewind of partition " + r.partition() + " from " + expectedNext + " to " + r.offset()
            + " (committed " + low + ", last tried " + high + ")");
        if (r.offset() < low || r.offset() > high) {
          badRewinds.add("partition " + r.partition() + " went back to " + r.offset() + " but the committed offset was "
              + "in [" + low + ", " + high + "]");
        }
      }
      lastRead.put(r.partition(), r.offset());
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      journal.add("assigned " + partitions);
      assignedCount++;
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      journal.add("lost " + partitions);
      lostCount++;
    }

    Set<String> distinct() {
      synchronized (read) {
        Set<String> s = new HashSet<>();
        read.forEach(r -> s.add(r.value()));
        return s;
      }
    }
  }

  static Set<String> produceAll(String tag) {
    Set<String> values = new HashSet<>();
    for (int p = 0; p < PARTITIONS; p++) {
      values.addAll(TestTopics.produceValues(broker.channel(), "orders", p, PER_PARTITION, tag + "-" + p + "-"));
    }
    return values;
  }

  @Test
  void aPollingMemberSurvivesAKill9AndGoesOnFromItsCommittedOffsetsWithNothingLost() throws Exception {
    Set<String> expected = new HashSet<>(produceAll("before"));
    // The app commits only while it has read fewer than 40 records: the rest of what it reads
    // before the kill is uncommitted and must be read again after the restart.
    App app = new App(40);
    try {
      await("the app read everything produced", 60, () -> app.distinct().containsAll(expected));

      broker.kill9();
      Thread.sleep(1000); // the app polls against a dead broker meanwhile
      assertThat(app.failure.get()).as("poll does not throw while the broker is away").isNull();
      broker.restartOnSamePort();
      app.commitBelow = Integer.MAX_VALUE;
      expected.addAll(produceAll("after"));

      await("the app read everything, old and new", 120, () -> app.distinct().containsAll(expected));
    } finally {
      app.stop = true;
      app.thread.join(TimeUnit.SECONDS.toMillis(60));
    }
    List<String> journal = List.copyOf(app.journal);
    assertThat(app.thread.isAlive()).isFalse();
    assertThat(app.failure.get()).as("the poll loop failed; journal %s", journal).isNull();
    assertThat(app.badRewinds).as("journal %s", journal).isEmpty();
    assertThat(app.lostCount).as("the restarted broker forgot the member: %s", journal).isPositive();
    assertThat(app.assignedCount).as("joined again: %s", journal).isGreaterThanOrEqualTo(2);
    assertThat(journal).as("went back to the committed offsets").anyMatch(e -> e.startsWith("rewind"));
    assertThat(app.distinct()).isEqualTo(expected);
  }
}
