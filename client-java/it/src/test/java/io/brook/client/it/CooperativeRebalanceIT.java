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
import io.brook.client.consumer.OffsetAndMetadata;
import io.brook.client.consumer.OffsetResetStrategy;
import io.brook.client.consumer.RebalanceProtocol;
import io.brook.client.errors.CommitFailedException;
import io.brook.protocol.v1.GroupState;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cooperative rebalancing (rebalance.protocol COOPERATIVE, D64) against the real broker: members keep
 * the partitions that do not move, and read them on while the rebalance is under way; only moved
 * partitions are revoked, committed, and then handed over, so with commits every record is read
 * once. Each member runs its poll loop on its own thread, as an application.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class CooperativeRebalanceIT {
  static final int PARTITIONS = 6;

  @TempDir static Path dir;
  static BrokerProcess broker;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  static List<TopicPartition> all(String topic) {
    return IntStream.range(0, PARTITIONS).mapToObj(p -> new TopicPartition(topic, p)).toList();
  }

  /** Produces {@code perPartition} records "tag-p-i" to every partition. */
  static Set<String> produce(String topic, String tag, int perPartition) {
    Set<String> values = new HashSet<>();
    for (int p = 0; p < PARTITIONS; p++) {
      values.addAll(TestTopics.produceValues(broker.channel(), topic, p, perPartition, tag + "-" + p + "-"));
    }
    return values;
  }

  static GroupState state(String group) {
    return TestTopics.describeGroup(broker.channel(), group).getState();
  }

  /**
   * One member on its own thread: polls (unless paused), commits after each batch and, for the
   * partitions revoked, in onPartitionsRevoked (checking the commit was stored); the listener's calls
   * go into the shared event log.
   */
  static final class Member implements ConsumerRebalanceListener, AutoCloseable {
    final String name;
    final BrookConsumer<String, String> consumer;
    final List<String> events;
    final List<ConsumerRecord<String, String>> records = Collections.synchronizedList(new ArrayList<>());
    final List<Collection<TopicPartition>> revoked = Collections.synchronizedList(new ArrayList<>());
    final List<String> problems = Collections.synchronizedList(new ArrayList<>());
    final Set<TopicPartition> assignment = ConcurrentHashMap.newKeySet();
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    volatile boolean paused;
    volatile boolean idle;
    volatile boolean stop;
    final Thread thread;

    Member(String name, String group, String topic, RebalanceProtocol protocol, int maxPollIntervalMs, List<String> events) {
      this.name = name;
      this.events = events;
      this.consumer = new BrookConsumer<>(ConsumerConfig.builder().broker(broker.address()).groupId(group)
          .clientId(name).sessionTimeout(Duration.ofSeconds(10)).maxPollInterval(Duration.ofMillis(maxPollIntervalMs))
          .autoOffsetReset(OffsetResetStrategy.EARLIEST).fetchMaxWait(Duration.ofMillis(200))
          .enableAutoCommit(false).rebalanceProtocol(protocol).build(),
          Serdes.stringDeserializer(), Serdes.stringDeserializer());
      consumer.subscribe(List.of(topic), this);
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
          for (ConsumerRecord<String, String> r : batch) {
            if (!assignment.contains(new TopicPartition(r.topic(), r.partition()))) {
              problems.add("record of " + r.topic() + "-" + r.partition() + " not assigned: " + assignment);
            }
          }
          records.addAll(batch);
          if (!batch.isEmpty()) {
            try {
              consumer.commitSync();
            } catch (CommitFailedException e) {
              problems.add(name + " commit failed: " + e.getMessage());
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
      revoked.add(sorted(partitions));
      Map<TopicPartition, OffsetAndMetadata> positions = new HashMap<>();
      partitions.forEach(tp -> positions.put(tp, new OffsetAndMetadata(consumer.position(tp))));
      consumer.commitSync(positions);
      Map<TopicPartition, OffsetAndMetadata> stored = consumer.committed(Set.copyOf(partitions));
      partitions.forEach(tp -> {
        if (!stored.containsKey(tp) || stored.get(tp).offset() != positions.get(tp).offset()) {
          problems.add("revoked " + tp + " at " + positions.get(tp).offset() + " but committed " + stored.get(tp));
        }
      });
      assignment.removeAll(partitions);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      events.add(name + " assigned " + sorted(partitions));
      assignment.addAll(partitions);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      events.add(name + " lost " + sorted(partitions));
      assignment.removeAll(partitions);
    }

    List<String> values() {
      synchronized (records) {
        return records.stream().map(ConsumerRecord::value).toList();
      }
    }

    /** Stops the poll loop (the consumer closes: it revokes, commits and leaves). */
    @Override
    public void close() throws InterruptedException {
      stop = true;
      thread.join(TimeUnit.SECONDS.toMillis(60));
      assertThat(thread.isAlive()).as("%s stopped", name).isFalse();
      assertThat(failure.get()).as("%s's poll loop failed", name).isNull();
    }
  }

  static List<TopicPartition> sorted(Collection<TopicPartition> tps) {
    List<TopicPartition> l = new ArrayList<>(tps);
    Collections.sort(l);
    return l;
  }

  static int readCount(Member... members) {
    int n = 0;
    for (Member m : members) {
      n += m.records.size();
    }
    return n;
  }

  /** Every value exactly once among the members. */
  static void assertReadOnce(Set<String> expected, Member... members) {
    List<String> read = new ArrayList<>();
    for (Member m : members) {
      read.addAll(m.values());
      assertThat(m.problems).as("%s's problems", m.name).isEmpty();
    }
    assertThat(read).as("no record read twice").doesNotHaveDuplicates();
    assertThat(new HashSet<>(read)).isEqualTo(expected);
  }

  @Test
  void twoCooperativeMembersKeepWhatDoesNotMoveAndReadItWhileAThirdJoins() throws Exception {
    String group = "coop-join";
    TestTopics.create(broker.channel(), "events", PARTITIONS);
    TestTopics.create(broker.channel(), "side", 1);
    List<String> events = Collections.synchronizedList(new ArrayList<>());
    // d reads another topic of the group: while it does not poll, the group waits for its rejoin
    // (its max.poll.interval.ms is the rebalance timeout), which holds the rebalance open.
    Member d = new Member("d", group, "side", RebalanceProtocol.EAGER, 120_000, events);
    Member a = null;
    Member b = null;
    Member c = null;
    Set<String> expected = new HashSet<>();
    try {
      await("d has its partition", 30, () -> d.assignment.size() == 1);
      a = new Member("a", group, "events", RebalanceProtocol.COOPERATIVE, 120_000, events);
      Member aa = a;
      await("a owns every partition", 30, () -> aa.assignment.size() == PARTITIONS);
      b = new Member("b", group, "events", RebalanceProtocol.COOPERATIVE, 120_000, events);
      Member bb = b;
      await("a and b have 3 each", 60, () -> aa.assignment.size() == 3 && bb.assignment.size() == 3);
      expected.addAll(produce("events", "first", 50));
      await("a and b read the first records", 30, () -> readCount(aa, bb) >= expected.size());
      Set<TopicPartition> aBefore = Set.copyOf(a.assignment);
      Set<TopicPartition> bBefore = Set.copyOf(b.assignment);
      int aRevokesBefore = a.revoked.size();
      int bRevokesBefore = b.revoked.size();

      d.paused = true;
      await("d's poll loop is idle", 10, () -> d.idle);
      int mark = events.size();
      c = new Member("c", group, "events", RebalanceProtocol.COOPERATIVE, 120_000, events);
      await("the group rebalances for c", 30, () -> state(group) == GroupState.GROUP_STATE_REBALANCING);

      // The rebalance waits for d; a and b have rejoined and go on reading everything they own.
      int before = readCount(a, b);
      expected.addAll(produce("events", "during", 30));
      await("a and b read the records produced during the rebalance", 30,
          () -> readCount(aa, bb) >= before + PARTITIONS * 30);
      assertThat(state(group)).as("still rebalancing: d has not rejoined").isEqualTo(GroupState.GROUP_STATE_REBALANCING);
      assertThat(a.assignment).isEqualTo(aBefore);
      assertThat(b.assignment).isEqualTo(bBefore);
      assertThat(c.assignment).isEmpty();

      d.paused = false;
      Member cc = c;
      await("a, b and c have 2 each", 60, () -> aa.assignment.size() == 2 && bb.assignment.size() == 2
          && cc.assignment.size() == 2);
      expected.addAll(produce("events", "after", 20));
      await("everything read", 30, () -> readCount(aa, bb, cc) >= expected.size());

      assertThat(aBefore).containsAll(a.assignment);
      assertThat(bBefore).containsAll(b.assignment);
      List<TopicPartition> moved = new ArrayList<>(c.assignment);
      assertThat(a.revoked.subList(aRevokesBefore, a.revoked.size())).as("a revoked only what moved to c: %s", events)
          .containsExactly(sorted(diff(aBefore, a.assignment)));
      assertThat(b.revoked.subList(bRevokesBefore, b.revoked.size())).as("b revoked only what moved to c: %s", events)
          .containsExactly(sorted(diff(bBefore, b.assignment)));
      Set<TopicPartition> movedFromAB = new HashSet<>(diff(aBefore, a.assignment));
      movedFromAB.addAll(diff(bBefore, b.assignment));
      assertThat(movedFromAB).containsExactlyInAnyOrderElementsOf(moved);
      assertThat(events).as("nobody lost partitions").noneMatch(e -> e.contains(" lost "));
      assertThat(events).as("c got each partition once it was revoked").filteredOn(e -> e.startsWith("c assigned"))
          .allSatisfy(e -> assertThat(e).isIn("c assigned []", "c assigned " + sorted(moved)));
      int cAssigned = events.indexOf("c assigned " + sorted(moved));
      for (TopicPartition tp : moved) {
        int revokedAt = indexOfRevoke(events, tp, mark);
        assertThat(revokedAt).as("%s revoked before c got it: %s", tp, events).isBetween(0, cAssigned - 1);
      }
    } finally {
      d.paused = false; // a failure above may leave the group waiting for d
      for (Member m : new Member[] {c, b, a}) {
        if (m != null) {
          m.close();
        }
      }
      d.close();
    }
    assertReadOnce(expected, a, b, c);
  }

  @Test
  void aClosingCooperativeMemberRevokesItsPartitionsAndTheOtherOnlyGetsThemAdded() throws Exception {
    String group = "coop-leave";
    TestTopics.create(broker.channel(), "leaving", PARTITIONS);
    List<String> events = Collections.synchronizedList(new ArrayList<>());
    Set<String> expected = new HashSet<>();
    Member a = new Member("a", group, "leaving", RebalanceProtocol.COOPERATIVE, 120_000, events);
    Member b = null;
    try {
      b = new Member("b", group, "leaving", RebalanceProtocol.COOPERATIVE, 120_000, events);
      Member bb = b;
      await("a and b have 3 each", 60, () -> a.assignment.size() == 3 && bb.assignment.size() == 3);
      expected.addAll(produce("leaving", "first", 40));
      await("a and b read the first records", 30, () -> readCount(a, bb) >= expected.size());
      Set<TopicPartition> aBefore = Set.copyOf(a.assignment);
      Set<TopicPartition> bBefore = Set.copyOf(b.assignment);
      int aRevokes = a.revoked.size();
      expected.addAll(produce("leaving", "second", 40));
      b.close(); // the consumer closes: it commits, revokes and leaves

      await("a owns every partition", 30, () -> a.assignment.size() == PARTITIONS);
      expected.addAll(produce("leaving", "third", 40));
      await("everything read", 30, () -> readCount(a, bb) >= expected.size());
      assertThat(a.revoked.subList(aRevokes, a.revoked.size())).as("a kept its partitions: %s", events).isEmpty();
      assertThat(events).as("a heard only of b's partitions added: %s", events)
          .contains("a assigned " + sorted(bBefore));
      assertThat(events).contains("b revoked " + sorted(bBefore));
      assertThat(a.assignment).containsAll(aBefore);
    } finally {
      a.close();
    }
    assertReadOnce(expected, a, b);
  }

  @Test
  void eagerAndCooperativeMembersShareAGroup() throws Exception {
    String group = "coop-mixed";
    TestTopics.create(broker.channel(), "mixed", PARTITIONS);
    List<String> events = Collections.synchronizedList(new ArrayList<>());
    Set<String> expected = new HashSet<>(produce("mixed", "first", 30));
    Member e = new Member("e", group, "mixed", RebalanceProtocol.EAGER, 120_000, events);
    Member a = null;
    Member c = null;
    try {
      await("e owns every partition", 30, () -> e.assignment.size() == PARTITIONS);
      a = new Member("a", group, "mixed", RebalanceProtocol.COOPERATIVE, 120_000, events);
      Member aa = a;
      await("e and a have 3 each", 60, () -> e.assignment.size() == 3 && aa.assignment.size() == 3);
      expected.addAll(produce("mixed", "second", 30));
      await("e and a read the records", 30, () -> readCount(e, aa) >= expected.size());
      Set<TopicPartition> aBefore = Set.copyOf(a.assignment);
      int aRevokes = a.revoked.size();
      int eRevokes = e.revoked.size();
      int eventsBeforeC = events.size();

      c = new Member("c", group, "mixed", RebalanceProtocol.COOPERATIVE, 120_000, events);
      Member cc = c;
      await("e, a and c have 2 each", 60, () -> e.assignment.size() == 2 && aa.assignment.size() == 2
          && cc.assignment.size() == 2);
      expected.addAll(produce("mixed", "third", 30));
      await("everything read", 30, () -> readCount(e, aa, cc) >= expected.size());

      assertThat(aBefore).containsAll(a.assignment);
      List<Collection<TopicPartition>> aRevoked = a.revoked.subList(aRevokes, a.revoked.size());
      assertThat(aRevoked).as("the cooperative member revoked only what moved: %s", events)
          .allSatisfy(r -> assertThat(r).doesNotContainAnyElementsOf(aa.assignment));
      assertThat(e.revoked.subList(eRevokes, e.revoked.size())).as("the eager member gives up everything: %s", events)
          .isNotEmpty().first().satisfies(r -> assertThat(r).hasSize(3));
      assertThat(events).noneMatch(x -> x.contains(" lost "));
      List<String> sinceC = List.copyOf(events.subList(eventsBeforeC, events.size()));
      for (TopicPartition tp : c.assignment) {
        int cAssigned = -1;
        for (int i = 0; i < sinceC.size() && cAssigned < 0; i++) {
          if (sinceC.get(i).startsWith("c assigned ") && sinceC.get(i).contains(tp.toString())) {
            cAssigned = i;
          }
        }
        assertThat(indexOfRevoke(sinceC, tp, 0)).as("%s revoked before c got it: %s", tp, events)
            .isBetween(0, cAssigned - 1);
      }
    } finally {
      for (Member m : new Member[] {c, a}) {
        if (m != null) {
          m.close();
        }
      }
      e.close();
    }
    assertReadOnce(expected, e, a, c);
  }

  static List<TopicPartition> diff(Set<TopicPartition> from, Set<TopicPartition> less) {
    List<TopicPartition> d = new ArrayList<>(from);
    d.removeAll(less);
    return d;
  }

  /** Where the first "x revoked [...]" naming this partition is in the log, from {@code from} on. */
  static int indexOfRevoke(List<String> log, TopicPartition tp, int from) {
    for (int i = from; i < log.size(); i++) {
      String e = log.get(i);
      if (e.contains(" revoked ") && e.contains(tp.toString())) {
        return i;
      }
    }
    return -1;
  }
}
