package io.brook.client.it;

import static io.brook.client.it.TestTopics.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.it.BrokerProcess;
import io.brook.client.Serdes;
import io.brook.client.TopicPartition;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerConfig;
import io.brook.client.consumer.ConsumerRebalanceListener;
import io.brook.client.consumer.OffsetResetStrategy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member that leaves or joins makes the others rebalance at once, not at their next heartbeat: the
 * broker gives members a 30 s heartbeat interval here, and the others must have rebalanced well
 * within it (their open heartbeat is answered when the group changes, D16).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RebalanceNoticeIT {
  static final int PARTITIONS = 4;
  static final List<TopicPartition> ALL = IntStream.range(0, PARTITIONS)
      .mapToObj(p -> new TopicPartition("notice", p)).toList();
  /** Far below the 30 s heartbeat interval, far above what the rebalance takes. */
  static final long PROMPTLY_S = 10;

  @TempDir static Path dir;
  static BrokerProcess broker;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"), "--set", "group.heartbeat.interval.ms=30000");
    TestTopics.create(broker.channel(), "notice", PARTITIONS);
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  /** A member polling on its own thread, as an application does, recording its callbacks. */
  static final class Member implements ConsumerRebalanceListener, AutoCloseable {
    final String name;
    final BrookConsumer<String, String> consumer;
    final List<String> events = Collections.synchronizedList(new ArrayList<>());
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    volatile List<TopicPartition> assignment = List.of();
    volatile boolean stop;
    final Thread thread;

    Member(String name, String group) {
      this.name = name;
      // A 90 s session: the broker's interval is min(30 s, 90 s / 3) = 30 s.
      this.consumer = new BrookConsumer<>(ConsumerConfig.builder().broker(broker.address()).groupId(group)
          .clientId(name).sessionTimeout(Duration.ofSeconds(90)).autoOffsetReset(OffsetResetStrategy.EARLIEST)
          .fetchMaxWait(Duration.ofMillis(200)).build(), Serdes.stringDeserializer(), Serdes.stringDeserializer());
      consumer.subscribe(List.of("notice"), this);
      thread = new Thread(this::loop, "member-" + name);
      thread.start();
    }

    private void loop() {
      try {
        while (!stop) {
          consumer.poll(Duration.ofMillis(200));
        }
        consumer.close();
      } catch (Throwable t) {
        failure.set(t);
      }
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      events.add("revoked " + ConsumerGroupIT.sorted(partitions));
      assignment = List.of();
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      events.add("assigned " + ConsumerGroupIT.sorted(partitions));
      assignment = ConsumerGroupIT.sorted(partitions);
    }

    List<String> callbacksSince(int index) {
      List<String> all = List.copyOf(events);
      return all.subList(index, all.size());
    }

    @Override
    public void close() throws InterruptedException {
      stop = true;
      thread.join(TimeUnit.SECONDS.toMillis(30));
      assertThat(thread.isAlive()).as("%s stopped", name).isFalse();
      assertThat(failure.get()).as("%s's poll loop failed", name).isNull();
    }
  }

  @Test
  void whenAMemberClosesTheOtherGetsItsPartitionsBeforeItsNextHeartbeat() throws Exception {
    try (Member a = new Member("a", "leave")) {
      await("a owns every partition", 30, () -> a.assignment.equals(ALL));
      Member b = new Member("b", "leave");
      try {
        // The join is the next test's subject: a generous bound here, so this one tests the leave alone.
        await("a and b share the partitions", 90, () -> a.assignment.size() == PARTITIONS / 2
            && b.assignment.size() == PARTITIONS / 2);
      } catch (AssertionError | RuntimeException e) {
        b.close();
        throw e;
      }
      List<TopicPartition> half = a.assignment;
      int before = a.events.size();
      b.close(); // leaves the group
      await("a got every partition back after b closed", PROMPTLY_S, () -> a.assignment.equals(ALL));
      assertThat(a.callbacksSince(before)).as("a's callbacks after b closed")
          .containsExactly("revoked " + half, "assigned " + ALL);
    }
  }

  @Test
  void whenAMemberJoinsTheOtherRebalancesBeforeItsNextHeartbeat() throws Exception {
    try (Member a = new Member("a", "join")) {
      await("a owns every partition", 30, () -> a.assignment.equals(ALL));
      int before = a.events.size();
      try (Member b = new Member("b", "join")) {
        await("a and b share the partitions", PROMPTLY_S, () -> a.assignment.size() == PARTITIONS / 2
            && b.assignment.size() == PARTITIONS / 2);
        assertThat(a.callbacksSince(before)).as("a's callbacks after b joined")
            .containsExactly("revoked " + ALL, "assigned " + a.assignment);
      }
    }
  }
}
