package io.brook.client.it;

import static io.brook.client.it.TestTopics.await;
import static io.brook.client.it.TestTopics.create;
import static io.brook.client.it.TestTopics.produce;
import static io.brook.client.it.TestTopics.produceValues;
import static io.brook.client.it.TestTopics.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.it.BrokerProcess;
import io.brook.client.Header;
import io.brook.client.Serdes;
import io.brook.client.TopicPartition;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerConfig;
import io.brook.client.consumer.ConsumerRebalanceListener;
import io.brook.client.consumer.ConsumerRecord;
import io.brook.client.consumer.ConsumerRecords;
import io.brook.client.consumer.OffsetAndMetadata;
import io.brook.client.consumer.OffsetResetStrategy;
import io.brook.client.errors.ConfigException;
import io.brook.client.errors.NoOffsetForPartitionException;
import io.brook.client.errors.WakeupException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** BrookConsumer against the real broker: one member or none (assign), positions and commits. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ConsumerIT {
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

  static ConsumerConfig.Builder config() {
    return ConsumerConfig.builder().broker(broker.address()).sessionTimeout(Duration.ofSeconds(6))
        .fetchMaxWait(Duration.ofMillis(200)).autoOffsetReset(OffsetResetStrategy.EARLIEST);
  }

  static BrookConsumer<String, String> consumer(ConsumerConfig.Builder b) {
    return new BrookConsumer<>(b.build(), Serdes.stringDeserializer(), Serdes.stringDeserializer());
  }

  /** Polls (at most 100 times) until `until` holds for everything read so far. */
  static List<ConsumerRecord<String, String>> pollUntil(BrookConsumer<String, String> c,
      Predicate<List<ConsumerRecord<String, String>>> until) {
    List<ConsumerRecord<String, String>> read = new ArrayList<>();
    for (int i = 0; i < 100 && !until.test(read); i++) {
      for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
        read.add(r);
      }
    }
    assertThat(until.test(read)).as("condition met after 100 polls; read %s", read.size()).isTrue();
    return read;
  }

  static List<String> values(List<ConsumerRecord<String, String>> records) {
    return records.stream().map(ConsumerRecord::value).toList();
  }

  @Test
  void recordsArriveWithTheirKeysHeadersAndTimestampsIntact() {
    create(broker.channel(), "roundtrip", 2);
    produce(broker.channel(), "roundtrip", 0, List.of(
        record("k1", "first", 1_700_000_000_000L, "trace", "abc", "trace", "def"),
        record(null, "no key", 1_700_000_000_001L)));
    produce(broker.channel(), "roundtrip", 1, List.of(record("k2", "", 42L, "empty", "")));

    try (BrookConsumer<String, String> c = consumer(config().groupId("roundtrip"))) {
      c.subscribe(List.of("roundtrip"));
      List<ConsumerRecord<String, String>> read = pollUntil(c, r -> r.size() >= 3);
      assertThat(read).hasSize(3);
      ConsumerRecord<String, String> first = read.stream().filter(r -> r.value().equals("first")).findFirst()
          .orElseThrow();
      assertThat(first.topic()).isEqualTo("roundtrip");
      assertThat(first.partition()).isZero();
      assertThat(first.offset()).isZero();
      assertThat(first.key()).isEqualTo("k1");
      assertThat(first.timestampMs()).isEqualTo(1_700_000_000_000L);
      assertThat(first.headers()).containsExactly(Header.of("trace", "abc"), Header.of("trace", "def"));
      assertThat(first.lastHeader("trace").valueAsString()).isEqualTo("def");

      ConsumerRecord<String, String> noKey = read.stream().filter(r -> r.value().equals("no key")).findFirst()
          .orElseThrow();
      assertThat(noKey.key()).isNull();
      assertThat(noKey.offset()).isEqualTo(1);
      assertThat(noKey.headers()).isEmpty();

      ConsumerRecord<String, String> other = read.stream().filter(r -> r.partition() == 1).findFirst().orElseThrow();
      assertThat(other.key()).isEqualTo("k2");
      assertThat(other.value()).isEmpty();
      assertThat(other.timestampMs()).isEqualTo(42L);
      assertThat(other.headers()).containsExactly(Header.of("empty", ""));
      assertThat(c.assignment()).containsExactlyInAnyOrder(new TopicPartition("roundtrip", 0),
          new TopicPartition("roundtrip", 1));
      assertThat(c.groupMetadata().isMember()).isTrue();
    }
  }

  @Test
  void autoCommitStoresWhatPollReturnedAtTheNextPollAndAtClose() {
    create(broker.channel(), "auto", 1);
    TopicPartition tp = new TopicPartition("auto", 0);
    produceValues(broker.channel(), "auto", 0, 10, "a");
    try (BrookConsumer<String, String> c = consumer(config().groupId("auto").maxPollRecords(4)
        .autoCommitInterval(Duration.ofMillis(1)))) {
      c.subscribe(List.of("auto"));
      List<ConsumerRecord<String, String>> read = pollUntil(c, r -> !r.isEmpty());
      long returned = read.get(read.size() - 1).offset() + 1;
      // An empty poll between the reset and the first records may commit the starting position (0),
      // as Kafka's consumer does: what that first poll returned is committed only by the next one.
      Long before = committedOf("auto", tp);
      assertThat(before == null ? 0 : before).as("nothing returned is committed before the next poll")
          .isLessThanOrEqualTo(read.get(0).offset());
      c.poll(Duration.ofMillis(1));
      assertThat(committedOf("auto", tp)).as("the next poll committed what the first returned")
          .isGreaterThanOrEqualTo(returned);
      pollUntil(c, r -> c.position(tp) == 10);
    }
    assertThat(committedOf("auto", tp)).as("close committed the position").isEqualTo(10L);

    produceValues(broker.channel(), "auto", 0, 3, "b");
    try (BrookConsumer<String, String> again = consumer(config().groupId("auto"))) {
      again.subscribe(List.of("auto"));
      assertThat(values(pollUntil(again, r -> r.size() >= 3))).as("only what came after the commit")
          .containsExactly("b0", "b1", "b2");
    }
  }

  @Test
  void manualCommitStoresTheNextOffsetToReadAndTheGroupGoesOnFromThere() {
    create(broker.channel(), "manual", 1);
    TopicPartition tp = new TopicPartition("manual", 0);
    produceValues(broker.channel(), "manual", 0, 10, "m");
    try (BrookConsumer<String, String> c = consumer(config().groupId("manual").enableAutoCommit(false))) {
      c.subscribe(List.of("manual"));
      pollUntil(c, r -> r.size() >= 10);
      c.commitSync(Map.of(tp, new OffsetAndMetadata(4)));
      assertThat(c.committed(Set.of(tp))).containsExactly(Map.entry(tp, new OffsetAndMetadata(4)));
    }
    assertThat(committedOf("manual", tp)).as("close without auto commit commits nothing more").isEqualTo(4L);

    try (BrookConsumer<String, String> c = consumer(config().groupId("manual").enableAutoCommit(false))) {
      c.subscribe(List.of("manual"));
      List<ConsumerRecord<String, String>> read = pollUntil(c, r -> r.size() >= 6);
      assertThat(read.get(0).offset()).isEqualTo(4);
      assertThat(values(read)).containsExactly("m4", "m5", "m6", "m7", "m8", "m9");
      c.commitSync();
    }
    assertThat(committedOf("manual", tp)).as("commitSync() commits the position").isEqualTo(10L);
  }

  @Test
  void commitAsyncReportsToItsCallbackOnThePollingThreadAndCloseWaitsForIt() {
    create(broker.channel(), "async", 1);
    TopicPartition tp = new TopicPartition("async", 0);
    produceValues(broker.channel(), "async", 0, 8, "c");
    List<String> outcomes = new ArrayList<>();
    Thread poller = Thread.currentThread();
    try (BrookConsumer<String, String> c = consumer(config().groupId("async").enableAutoCommit(false))) {
      c.subscribe(List.of("async"));
      pollUntil(c, r -> r.size() >= 8);
      c.commitAsync(Map.of(tp, new OffsetAndMetadata(5)), (offsets, e) -> outcomes.add(offsets + " " + e + " "
          + (Thread.currentThread() == poller)));
      for (int i = 0; i < 100 && outcomes.isEmpty(); i++) {
        c.poll(Duration.ofMillis(20));
      }
      assertThat(outcomes).containsExactly("{async-0=OffsetAndMetadata[offset=5, metadata=]} null true");
      assertThat(committedOf("async", tp)).isEqualTo(5L);
      c.commitAsync(); // the position, 8; close waits for it
    }
    assertThat(committedOf("async", tp)).isEqualTo(8L);
  }

  @Test
  void maxPollRecordsHoldsWhenAFetchReadsWholeBatchesAndPositionsFollowWhatPollReturned() {
    create(broker.channel(), "batched", 2);
    TopicPartition p0 = new TopicPartition("batched", 0);
    TopicPartition p1 = new TopicPartition("batched", 1);
    produceValues(broker.channel(), "batched", 0, 25, "x"); // one stored batch each
    produceValues(broker.channel(), "batched", 1, 25, "y");
    try (BrookConsumer<String, String> c = consumer(config().groupId("batched").enableAutoCommit(false)
        .maxPollRecords(10))) {
      c.assign(List.of(p0, p1));
      Map<Integer, List<String>> read = new java.util.TreeMap<>();
      for (int i = 0; i < 100 && read.values().stream().mapToInt(List::size).sum() < 50; i++) {
        ConsumerRecords<String, String> polled = c.poll(Duration.ofMillis(200));
        assertThat(polled.count()).as("poll %d", i).isLessThanOrEqualTo(10);
        for (TopicPartition tp : polled.partitions()) {
          List<ConsumerRecord<String, String>> rs = polled.records(tp);
          assertThat(c.position(tp)).as("the position follows what poll returned")
              .isEqualTo(rs.get(rs.size() - 1).offset() + 1);
          rs.forEach(r -> read.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(r.value()));
        }
      }
      assertThat(read.get(0)).isEqualTo(IntStream.range(0, 25).mapToObj(i -> "x" + i).toList());
      assertThat(read.get(1)).isEqualTo(IntStream.range(0, 25).mapToObj(i -> "y" + i).toList());
      c.commitSync();
      assertThat(committedOf("batched", p0)).isEqualTo(25L);
    }

    try (BrookConsumer<String, String> c = consumer(config().maxPollRecords(10))) {
      c.assign(List.of(p0));
      assertThat(values(c.poll(Duration.ofSeconds(5)).records(p0))).hasSize(10).startsWith("x0");
      assertThat(c.position(p0)).isEqualTo(10);
      c.seek(p0, 3); // what the fetch read ahead (x10..x24) must not come next
      assertThat(values(c.poll(Duration.ofSeconds(5)).records(p0))).hasSize(10).startsWith("x3");
    }
  }

  @Test
  void aFetchSentAheadIsDroppedWhenASeekComesBeforeItsAnswerIsTaken() {
    create(broker.channel(), "ahead", 1);
    TopicPartition tp = new TopicPartition("ahead", 0);
    produceValues(broker.channel(), "ahead", 0, 10, "a"); // two stored batches
    produceValues(broker.channel(), "ahead", 0, 10, "b");
    try (BrookConsumer<String, String> c = consumer(config().maxPollRecords(10))) {
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      assertThat(values(c.poll(Duration.ofSeconds(5)).records(tp))).startsWith("a0").hasSize(10);
      // That poll sent the fetch of b0..b9 ahead; a seek makes its answer stale.
      c.seek(tp, 3);
      assertThat(values(c.poll(Duration.ofSeconds(5)).records(tp))).containsExactly("a3", "a4", "a5", "a6", "a7",
          "a8", "a9", "b0", "b1", "b2");
      assertThat(values(c.poll(Duration.ofSeconds(5)).records(tp))).containsExactly("b3", "b4", "b5", "b6", "b7",
          "b8", "b9");
      assertThat(c.position(tp)).isEqualTo(20);
    }
  }

  @Test
  void aStaleFetchIsCancelledAtTheBrokerNotLeftWaiting() throws Exception {
    create(broker.channel(), "stale", 1);
    TopicPartition tp = new TopicPartition("stale", 0);
    produceValues(broker.channel(), "stale", 0, 3, "s");
    double before = broker.metric("brook_grpc_long_calls");
    try (BrookConsumer<String, String> c = consumer(config().fetchMaxWait(Duration.ofSeconds(20)))) {
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      assertThat(values(c.poll(Duration.ofSeconds(5)).records(tp))).containsExactly("s0", "s1", "s2");
      // Caught up: the fetch sent ahead now waits at the broker (up to 20 s).
      await("the fetch sent ahead waits at the broker", 10, () -> longCalls() == before + 1);
      c.seek(tp, 1);
      assertThat(values(c.poll(Duration.ofSeconds(5)).records(tp))).containsExactly("s1", "s2");
      // The stale fetch was cancelled, not left open beside the one sent after this poll.
      await("one fetch waits at the broker", 10, () -> longCalls() == before + 1);
    }
  }

  static double longCalls() {
    try {
      return broker.metric("brook_grpc_long_calls");
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void seekMovesThePositionAndSeekToBeginningAndEndAreLookedUpLazily() {
    create(broker.channel(), "seek", 1);
    TopicPartition tp = new TopicPartition("seek", 0);
    produceValues(broker.channel(), "seek", 0, 10, "s");
    try (BrookConsumer<String, String> c = consumer(config().autoOffsetReset(OffsetResetStrategy.LATEST))) {
      c.assign(List.of(tp));
      assertThat(c.position(tp)).as("latest").isEqualTo(10);
      c.seek(tp, 7);
      assertThat(values(pollUntil(c, r -> r.size() >= 3))).containsExactly("s7", "s8", "s9");
      c.seekToBeginning(List.of(tp));
      assertThat(c.position(tp)).isZero();
      assertThat(pollUntil(c, r -> !r.isEmpty()).get(0).offset()).isZero();
      c.seekToEnd(List.of());
      assertThat(c.poll(Duration.ofMillis(100)).isEmpty()).isTrue();
      assertThat(c.position(tp)).isEqualTo(10);
      assertThat(c.currentLag(tp)).hasValue(0);
      produceValues(broker.channel(), "seek", 0, 1, "later");
      assertThat(values(pollUntil(c, r -> !r.isEmpty()))).containsExactly("later0");
      assertThatThrownBy(() -> c.seek(new TopicPartition("seek", 5), 0)).isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void assignWithoutAGroupReadsFromAutoOffsetResetAndRefusesToCommit() {
    create(broker.channel(), "nogroup", 2);
    produceValues(broker.channel(), "nogroup", 0, 3, "x");
    produceValues(broker.channel(), "nogroup", 1, 2, "y");
    TopicPartition p0 = new TopicPartition("nogroup", 0);
    TopicPartition p1 = new TopicPartition("nogroup", 1);
    try (BrookConsumer<String, String> c = consumer(config())) {
      c.assign(List.of(p0, p1));
      assertThat(values(pollUntil(c, r -> r.size() >= 5))).containsExactlyInAnyOrder("x0", "x1", "x2", "y0", "y1");
      assertThat(c.groupMetadata().isMember()).isFalse();
      assertThatThrownBy(c::commitSync).isInstanceOf(ConfigException.class).hasMessageContaining("group.id");
      c.assign(List.of(p1));
      assertThat(c.assignment()).containsExactly(p1);
      assertThat(c.position(p1)).as("a partition kept keeps its position").isEqualTo(2);
    }
  }

  @Test
  void assignWithAGroupStartsAtTheCommittedOffsetAndCommitsFromOutsideTheGroup() {
    create(broker.channel(), "standalone", 1);
    TopicPartition tp = new TopicPartition("standalone", 0);
    produceValues(broker.channel(), "standalone", 0, 5, "z");
    try (BrookConsumer<String, String> c = consumer(config().groupId("standalone").enableAutoCommit(false))) {
      c.assign(List.of(tp));
      pollUntil(c, r -> r.size() >= 3);
      c.commitSync(Map.of(tp, new OffsetAndMetadata(3)));
    }
    try (BrookConsumer<String, String> c = consumer(config().groupId("standalone"))) {
      c.assign(List.of(tp));
      assertThat(c.position(tp)).isEqualTo(3);
      assertThat(values(pollUntil(c, r -> r.size() >= 2))).containsExactly("z3", "z4");
    }
    assertThat(committedOf("standalone", tp)).as("auto commit at close, from outside the group").isEqualTo(5L);
  }

  @Test
  void autoOffsetResetNoneThrowsATypedExceptionUntilThePartitionIsSought() {
    create(broker.channel(), "strict", 1);
    TopicPartition tp = new TopicPartition("strict", 0);
    produceValues(broker.channel(), "strict", 0, 4, "n");
    try (BrookConsumer<String, String> c = consumer(config().groupId("strict")
        .autoOffsetReset(OffsetResetStrategy.NONE))) {
      c.subscribe(List.of("strict"));
      NoOffsetForPartitionException thrown = null;
      for (int i = 0; i < 100 && thrown == null; i++) {
        try {
          assertThat(c.poll(Duration.ofMillis(200)).isEmpty()).as("no record without a start").isTrue();
        } catch (NoOffsetForPartitionException e) {
          thrown = e;
        }
      }
      assertThat(thrown).isNotNull();
      assertThat(thrown.partitions()).containsExactly(tp);
      assertThat(thrown.reason()).isEqualTo("NO_OFFSET");
      assertThat(thrown.getMessage()).contains("strict-0", "auto.offset.reset is none");

      c.seek(tp, 2);
      assertThat(values(pollUntil(c, r -> r.size() >= 2))).containsExactly("n2", "n3");
    }
    try (BrookConsumer<String, String> c = consumer(config().autoOffsetReset(OffsetResetStrategy.NONE))) {
      c.assign(List.of(tp));
      assertThatThrownBy(() -> c.poll(Duration.ofMillis(100))).isInstanceOf(NoOffsetForPartitionException.class)
          .hasMessageContaining("no group.id");
    }
  }

  @Test
  void aConsumerWithoutRecordsReturnsEmptyPollsAndClosesCleanly() {
    create(broker.channel(), "quiet", 1);
    try (BrookConsumer<String, String> c = consumer(config().groupId("quiet"))) {
      c.subscribe(List.of("quiet"));
      ConsumerRecords<String, String> r = null;
      for (int i = 0; i < 5; i++) {
        r = c.poll(Duration.ofMillis(100));
        assertThat(r.isEmpty()).isTrue();
      }
    }
    assertThat(TestTopics.describeGroup(broker.channel(), "quiet").getMembersCount()).as("left at close").isZero();
  }

  @Test
  void beginningEndAndTimeOffsetsAreTheBrokersAnswers() {
    create(broker.channel(), "offsets", 1);
    TopicPartition tp = new TopicPartition("offsets", 0);
    produce(broker.channel(), "offsets", 0, List.of(record(null, "t100", 100L), record(null, "t200", 200L),
        record(null, "t300", 300L)));
    try (BrookConsumer<String, String> c = consumer(config())) {
      assertThat(c.beginningOffsets(List.of(tp))).containsExactly(Map.entry(tp, 0L));
      assertThat(c.endOffsets(List.of(tp))).containsExactly(Map.entry(tp, 3L));
      assertThat(c.offsetsForTimes(Map.of(tp, 150L))).as("first at or after 150").containsExactly(Map.entry(tp, 1L));
      assertThat(c.offsetsForTimes(Map.of(tp, 301L))).as("none that recent: the end").containsExactly(
          Map.entry(tp, 3L));
      assertThatThrownBy(() -> c.endOffsets(List.of(new TopicPartition("offsets", 9))))
          .isInstanceOf(io.brook.client.errors.UnknownPartitionException.class);
    }
  }

  @Test
  void wakeupEndsAPollThatWaitsForRecordsAndTheConsumerGoesOn() throws Exception {
    create(broker.channel(), "wake", 1);
    try (BrookConsumer<String, String> c = consumer(config().groupId("wake"))) {
      c.subscribe(List.of("wake"));
      pollUntil(c, r -> c.groupMetadata().isMember());
      Thread waker = new Thread(() -> {
        try {
          Thread.sleep(300);
        } catch (InterruptedException e) {
          return;
        }
        c.wakeup();
      });
      waker.start();
      assertThatThrownBy(() -> c.poll(Duration.ofMinutes(5))).isInstanceOf(WakeupException.class);
      waker.join();
      produceValues(broker.channel(), "wake", 0, 1, "w");
      assertThat(values(pollUntil(c, r -> !r.isEmpty()))).containsExactly("w0");
    }
  }

  @Test
  void unsubscribeRevokesAndLeavesThenASubscribeJoinsAgain() {
    create(broker.channel(), "resub", 1);
    List<String> events = new ArrayList<>();
    ConsumerRebalanceListener listener = new ConsumerRebalanceListener() {
      @Override
      public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        events.add("revoked " + partitions);
      }

      @Override
      public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        events.add("assigned " + partitions);
      }
    };
    try (BrookConsumer<String, String> c = consumer(config().groupId("resub"))) {
      c.subscribe(List.of("resub"), listener);
      pollUntil(c, r -> c.groupMetadata().isMember());
      c.unsubscribe();
      assertThat(c.assignment()).isEmpty();
      assertThat(TestTopics.describeGroup(broker.channel(), "resub").getMembersCount()).as("left").isZero();
      c.subscribe(List.of("resub"), listener);
      pollUntil(c, r -> c.groupMetadata().isMember());
    }
    assertThat(events).containsExactly("assigned [resub-0]", "revoked [resub-0]", "assigned [resub-0]",
        "revoked [resub-0]");
  }

  /** The group's committed offset of a partition, read from outside the group. */
  static Long committedOf(String group, TopicPartition tp) {
    try (BrookConsumer<String, String> reader = consumer(ConsumerConfig.builder().broker(broker.address())
        .groupId(group).enableAutoCommit(false))) {
      OffsetAndMetadata commit = reader.committed(Set.of(tp)).get(tp);
      return commit == null ? null : commit.offset();
    }
  }
}
