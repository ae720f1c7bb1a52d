package io.brook.client.it;

import static io.brook.client.it.TestTopics.create;
import static io.brook.client.it.TestTopics.produceValues;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.it.BrokerProcess;
import io.brook.client.Serdes;
import io.brook.client.TopicPartition;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerConfig;
import io.brook.client.consumer.ConsumerGroupMetadata;
import io.brook.client.consumer.ConsumerRebalanceListener;
import io.brook.client.consumer.ConsumerRecord;
import io.brook.client.consumer.OffsetResetStrategy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** pause, resume and paused against the real broker, with Kafka's semantics. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ConsumerPauseIT {
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

  static List<ConsumerRecord<String, String>> pollTimes(BrookConsumer<String, String> c, int polls) {
    List<ConsumerRecord<String, String>> read = new ArrayList<>();
    for (int i = 0; i < polls; i++) {
      c.poll(Duration.ofMillis(200)).forEach(read::add);
    }
    return read;
  }

  /** Polls (at most 100 times) until `count` records were read. */
  static List<ConsumerRecord<String, String>> pollCount(BrookConsumer<String, String> c, int count) {
    List<ConsumerRecord<String, String>> read = new ArrayList<>();
    for (int i = 0; i < 100 && read.size() < count; i++) {
      c.poll(Duration.ofMillis(200)).forEach(read::add);
    }
    assertThat(read).as("records read within 100 polls").hasSize(count);
    return read;
  }

  static List<String> offsets(List<ConsumerRecord<String, String>> records) {
    return records.stream().map(r -> r.partition() + "@" + r.offset()).toList();
  }

  @Test
  void aPausedPartitionIsNotReadUntilResumedAndKeepsItsPosition() {
    create(broker.channel(), "pause-assign", 2);
    TopicPartition p0 = new TopicPartition("pause-assign", 0);
    TopicPartition p1 = new TopicPartition("pause-assign", 1);
    produceValues(broker.channel(), "pause-assign", 0, 5, "zero-");
    produceValues(broker.channel(), "pause-assign", 1, 5, "one-");
    try (BrookConsumer<String, String> c = consumer(config())) {
      c.assign(List.of(p0, p1));
      c.pause(List.of(p0));
      assertThat(c.paused()).containsExactly(p0);

      List<ConsumerRecord<String, String>> read = pollCount(c, 5);
      read.addAll(pollTimes(c, 5)); // p0 still has five records it must not return
      assertThat(offsets(read)).containsExactly("1@0", "1@1", "1@2", "1@3", "1@4");
      assertThat(c.position(p0)).isZero();

      c.resume(List.of(p0));
      assertThat(c.paused()).isEmpty();
      assertThat(offsets(pollCount(c, 5))).containsExactly("0@0", "0@1", "0@2", "0@3", "0@4");
    }
  }

  @Test
  void recordsAlreadyFetchedForAPartitionWaitWhileItIsPausedAndComeNextAfterResume() {
    create(broker.channel(), "pause-buffered", 2);
    TopicPartition p0 = new TopicPartition("pause-buffered", 0);
    TopicPartition p1 = new TopicPartition("pause-buffered", 1);
    produceValues(broker.channel(), "pause-buffered", 0, 5, "v"); // one batch: one fetch reads all five
    try (BrookConsumer<String, String> c = consumer(config().maxPollRecords(1))) {
      c.assign(List.of(p0, p1));
      assertThat(offsets(pollCount(c, 1))).containsExactly("0@0");

      // Offsets 1-4 were fetched with offset 0 and wait in the consumer; p1 keeps the fetches going.
      c.pause(List.of(p0));
      assertThat(pollTimes(c, 3)).isEmpty();
      assertThat(c.position(p0)).isEqualTo(1);

      c.resume(List.of(p0));
      assertThat(offsets(pollCount(c, 4))).containsExactly("0@1", "0@2", "0@3", "0@4");
    }
  }

  @Test
  void pausingOrResumingAPartitionNotAssignedIsAnIllegalStateAndChangesNothing() {
    create(broker.channel(), "pause-unassigned", 2);
    TopicPartition p0 = new TopicPartition("pause-unassigned", 0);
    TopicPartition p1 = new TopicPartition("pause-unassigned", 1);
    try (BrookConsumer<String, String> c = consumer(config())) {
      assertThatThrownBy(() -> c.pause(List.of(p0))).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("no current assignment for partition " + p0);
      c.assign(List.of(p0));
      assertThatThrownBy(() -> c.pause(List.of(p0, p1))).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(p1.toString());
      assertThat(c.paused()).as("nothing paused when one partition is not assigned").isEmpty();
      c.pause(List.of(p0));
      assertThatThrownBy(() -> c.resume(List.of(p0, p1))).isInstanceOf(IllegalStateException.class);
      assertThat(c.paused()).containsExactly(p0);

      c.assign(List.of(p0, p1)); // assign keeps the pauses of the partitions it keeps
      assertThat(c.paused()).containsExactly(p0);
      c.assign(List.of(p1));
      assertThat(c.paused()).isEmpty();
    }
  }

  @Test
  void aPausedMemberStaysInTheGroupAndARebalanceEndsItsPauses() throws Exception {
    create(broker.channel(), "pause-group", 2);
    produceValues(broker.channel(), "pause-group", 0, 3, "zero-");
    produceValues(broker.channel(), "pause-group", 1, 3, "one-");
    List<String> events = Collections.synchronizedList(new ArrayList<>());
    ConsumerConfig.Builder member = config().groupId("pausers").enableAutoCommit(false);
    try (BrookConsumer<String, String> a = consumer(member.clientId("a"));
        BrookConsumer<String, String> b = consumer(member.clientId("b"))) {
      a.subscribe(List.of("pause-group"), listener("a", events));
      for (int i = 0; i < 100 && a.assignment().size() < 2; i++) {
        a.poll(Duration.ofMillis(200));
      }
      assertThat(a.assignment()).hasSize(2);
      a.pause(a.assignment());
      ConsumerGroupMetadata before = a.groupMetadata();

      // Longer than the 6 s session: only heartbeats keep the member in.
      List<ConsumerRecord<String, String>> whilePaused = new ArrayList<>();
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
      while (System.nanoTime() - until < 0) {
        a.poll(Duration.ofMillis(200)).forEach(whilePaused::add);
      }
      assertThat(whilePaused).as("nothing read while every partition is paused").isEmpty();
      assertThat(a.groupMetadata()).as("still the same member in the same generation").isEqualTo(before);
      assertThat(events).as("no rebalance happened").containsExactly("a assigned 2");
      assertThat(a.paused()).hasSize(2);

      // b joins: the eager rebalance revokes a's partitions, which ends their pauses.
      b.subscribe(List.of("pause-group"), listener("b", events));
      CompletableFuture<List<ConsumerRecord<String, String>>> bRead = CompletableFuture.supplyAsync(() -> {
        List<ConsumerRecord<String, String>> read = new ArrayList<>();
        for (int i = 0; i < 150 && read.size() < 3; i++) {
          b.poll(Duration.ofMillis(200)).forEach(read::add);
        }
        return read;
      });
      List<ConsumerRecord<String, String>> aRead = new ArrayList<>();
      for (int i = 0; i < 150 && aRead.size() < 3; i++) {
        a.poll(Duration.ofMillis(200)).forEach(aRead::add);
      }
      assertThat(bRead.get(60, TimeUnit.SECONDS)).as("b read its partition").hasSize(3);
      assertThat(a.assignment()).hasSize(1);
      assertThat(a.paused()).as("the rebalance ended a's pauses").isEmpty();
      assertThat(aRead).as("a reads its remaining partition again").hasSize(3);
      assertThat(events).contains("a revoked 2", "b assigned 1");
    }
  }

  static ConsumerRebalanceListener listener(String name, List<String> events) {
    return new ConsumerRebalanceListener() {
      @Override
      public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        events.add(name + " revoked " + partitions.size());
      }

      @Override
      public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        events.add(name + " assigned " + partitions.size());
      }

      @Override
      public void onPartitionsLost(Collection<TopicPartition> partitions) {
        events.add(name + " lost " + partitions.size());
      }
    };
  }
}
