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
import io.brook.client.consumer.OffsetResetStrategy;
import io.brook.client.errors.CommitFailedException;
import io.brook.protocol.v1.GroupDescription;
import io.brook.protocol.v1.MemberDescription;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two members of one group (moved here from the CLI's GroupConsumerIT): the rebalance listener runs
 * in the order that keeps delivery exactly once between members that commit, and a member that
 * stops polling is removed. Each member runs its poll loop on its own thread, as an application.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ConsumerGroupIT {
  static final int PARTITIONS = 4;
  static final List<TopicPartition> ALL = IntStream.range(0, PARTITIONS)
      .mapToObj(p -> new TopicPartition("events", p)).toList();

  @TempDir static Path dir;
  static BrokerProcess broker;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
    TestTopics.create(broker.channel(), "events", PARTITIONS);
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  /** Produces `perPartition` records "tag-p-i" to every partition. */
  static Set<String> produce(String tag, int perPartition) {
    Set<String> values = new HashSet<>();
    for (int p = 0; p < PARTITIONS; p++) {
      values.addAll(TestTopics.produceValues(broker.channel(), "events", p, perPartition, tag + "-" + p + "-"));
    }
    return values;
  }

  /**
   * One member on its own thread: polls (unless paused), commits in onPartitionsRevoked (checking the
   * commit was stored) and at close (and after each batch when told to), and writes every callback
   * into the shared event log.
   */
  static final class Member implements ConsumerRebalanceListener, AutoCloseable {
    final String name;
    final BrookConsumer<String, String> consumer;
    final List<String> events;
    final List<ConsumerRecord<String, String>> records = Collections.synchronizedList(new ArrayList<>());
    final List<Collection<TopicPartition>> lost = Collections.synchronizedList(new ArrayList<>());
    final List<String> revokeCommitProblems = Collections.synchronizedList(new ArrayList<>());
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    volatile List<TopicPartition> assignment = List.of();
    volatile String memberId = "";
    volatile boolean paused;
    /** The loop saw {@link #paused}: no poll of it is under way. */
    volatile boolean idle;
    volatile boolean stop;
    final boolean commitEachBatch;
    final Thread thread;

    Member(String name, String group, int maxPollIntervalMs, boolean commitEachBatch, List<String> events) {
      this.name = name;
      this.events = events;
      this.commitEachBatch = commitEachBatch;
      this.consumer = new BrookConsumer<>(ConsumerConfig.builder().broker(broker.address()).groupId(group)
          .clientId(name).sessionTimeout(Duration.ofSeconds(6)).maxPollInterval(Duration.ofMillis(maxPollIntervalMs))
          .autoOffsetReset(OffsetResetStrategy.EARLIEST).fetchMaxWait(Duration.ofMillis(200))
          .enableAutoCommit(false).build(), Serdes.stringDeserializer(), Serdes.stringDeserializer());
      consumer.subscribe(List.of("events"), this);
      this.thread = new Thread(this::loop, "member-" + name);
      thread.start();
    }

    private void loop() {
      try {
        while (!stop) {
          idle = paused;
          if (paused) {
            Thread.sleep(10);
            continue;
          }
          List<ConsumerRecord<String, String>> batch = consumer.poll(Duration.ofMillis(200)).asList();
          records.addAll(batch);
          if (commitEachBatch && !batch.isEmpty()) {
            try {
              consumer.commitSync();
            } catch (CommitFailedException e) {
              events.add(name + " commit failed");
            }
          }
        }
        consumer.close();
      } catch (Throwable t) {
        failure.set(t);
      }
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      events.add(name + " revoked " + sorted(partitions));
      Map<TopicPartition, Long> positions = new java.util.HashMap<>();
      partitions.forEach(tp -> positions.put(tp, consumer.position(tp)));
      consumer.commitSync();
      Map<TopicPartition, Long> stored = new java.util.HashMap<>();
      consumer.committed(Set.copyOf(partitions)).forEach((tp, commit) -> stored.put(tp, commit.offset()));
      if (!stored.equals(positions)) {
        revokeCommitProblems.add("positions " + positions + " but committed " + stored);
      }
      assignment = List.of();
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      events.add(name + " assigned " + sorted(partitions));
      memberId = consumer.groupMetadata().memberId();
      assignment = List.copyOf(partitions);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      events.add(name + " lost " + sorted(partitions));
      lost.add(sorted(partitions));
      assignment = List.of();
    }

    Set<String> values() {
      synchronized (records) {
        Set<String> v = new HashSet<>();
        records.forEach(r -> v.add(r.value()));
        return v;
      }
    }

    @Override
    public void close() throws InterruptedException {
      stop = true;
      thread.join(TimeUnit.SECONDS.toMillis(30));
      assertThat(thread.isAlive()).as("%s stopped", name).isFalse();
      assertThat(failure.get()).as("%s's poll loop failed", name).isNull();
    }
  }

  static List<TopicPartition> sorted(Collection<TopicPartition> tps) {
    List<TopicPartition> l = new ArrayList<>(tps);
    Collections.sort(l);
    return l;
  }

  @Test
  void revokedRunsBeforeAnotherMemberGetsThePartitionsSoNothingIsReadTwice() throws Exception {
    List<String> events = Collections.synchronizedList(new ArrayList<>());
    Set<String> expected = new HashSet<>(produce("first", 50));
    // Neither commits as it goes: only a's commit in onPartitionsRevoked tells b where a stopped.
    Member a = new Member("a", "order", 30_000, false, events);
    Member b = null;
    try {
      await("a owns every partition", 30, () -> a.assignment.size() == PARTITIONS);
      await("a read the first records", 30, () -> a.records.size() >= expected.size());

      b = new Member("b", "order", 30_000, false, events);
      Member bb = b;
      await("a and b share the partitions", 60, () -> !bb.assignment.isEmpty() && !a.assignment.isEmpty()
          && a.assignment.size() + bb.assignment.size() == PARTITIONS);
      Set<TopicPartition> union = new HashSet<>(a.assignment);
      union.addAll(b.assignment);
      assertThat(union).containsExactlyInAnyOrderElementsOf(ALL);
      assertThat(a.assignment).doesNotContainAnyElementsOf(b.assignment);

      expected.addAll(produce("second", 50));
      await("a and b read the second records", 30, () -> a.records.size() + bb.records.size() >= expected.size());
    } finally {
      if (b != null) {
        b.close();
      }
      a.close();
    }

    List<String> log = List.copyOf(events);
    int revoked = log.indexOf("a revoked " + ALL);
    int bAssigned = indexOfNonEmpty(log, "b assigned");
    assertThat(revoked).as("a revoked its partitions: %s", log).isNotNegative();
    assertThat(bAssigned).as("b got partitions: %s", log).isNotNegative();
    assertThat(revoked).as("a revokes before b gets partitions: %s", log).isLessThan(bAssigned);
    assertThat(indexOfNonEmpty(log.subList(revoked, log.size()), "a assigned")).as("a rejoins: %s", log)
        .isNotNegative();
    assertThat(log).as("nobody lost partitions").noneMatch(e -> e.contains(" lost "));
    assertThat(a.revokeCommitProblems).as("the commit inside onPartitionsRevoked was stored").isEmpty();
    assertThat(b.revokeCommitProblems).isEmpty();

    // a committed in onPartitionsRevoked, so b started where a stopped: every record once.
    assertThat(a.records.size() + b.records.size()).as("records read by a and b").isEqualTo(expected.size());
    Set<String> read = new HashSet<>(a.values());
    read.addAll(b.values());
    assertThat(read).isEqualTo(expected);
  }

  @Test
  void aMemberThatStopsPollingLeavesAndTheOtherGetsEveryPartitionThenItRejoinsAsANewMember() throws Exception {
    List<String> events = Collections.synchronizedList(new ArrayList<>());
    try (Member slow = new Member("slow", "poll-interval", 3000, true, events)) {
      await("slow owns every partition", 30, () -> slow.assignment.size() == PARTITIONS);
      String firstId = slow.memberId;
      slow.paused = true; // its heartbeat thread goes on; the application no longer polls
      // A poll under way would hear at once of the rebalance other's join starts, and take part in it.
      await("slow's poll loop is idle", 10, () -> slow.idle);

      // other's long rebalance timeout makes the broker wait up to 120 s for slow to rejoin, and
      // slow's heartbeats keep its session alive: only slow leaving (3 s after its last poll) lets
      // other's join complete within the wait below.
      try (Member other = new Member("other", "poll-interval", 120_000, true, events)) {
        await("other owns every partition", 20, () -> other.assignment.size() == PARTITIONS);
        GroupDescription g = TestTopics.describeGroup(broker.channel(), "poll-interval");
        assertThat(g.getMembersList()).extracting(MemberDescription::getMemberId).containsExactly(other.memberId);
        assertThat(slow.lost).as("slow has not polled since").isEmpty();

        slow.paused = false;
        await("slow rejoins and the two share the partitions", 60, () -> !slow.assignment.isEmpty()
            && !other.assignment.isEmpty() && slow.assignment.size() + other.assignment.size() == PARTITIONS);
        assertThat(slow.lost).as("the next poll reported the partitions lost").containsExactly(ALL);
        assertThat(slow.memberId).as("slow joined again as a new member").isNotEqualTo(firstId);
        assertThat(TestTopics.describeGroup(broker.channel(), "poll-interval").getMembersCount()).isEqualTo(2);
        List<String> log = List.copyOf(events);
        assertThat(log).as("slow never revoked: it could not commit anymore").doesNotContain("slow revoked " + ALL);
      }
    }
  }

  /** The first entry "<prefix> [...]" with at least one partition. */
  private static int indexOfNonEmpty(List<String> log, String prefix) {
    for (int i = 0; i < log.size(); i++) {
      if (log.get(i).startsWith(prefix + " [") && !log.get(i).equals(prefix + " []")) {
        return i;
      }
    }
    return -1;
  }
}
