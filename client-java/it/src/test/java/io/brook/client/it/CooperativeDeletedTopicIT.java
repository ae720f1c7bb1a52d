package io.brook.client.it;

import static io.brook.client.it.TestTopics.create;
import static io.brook.client.it.TestTopics.produceValues;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.it.BrokerProcess;
import io.brook.client.Serdes;
import io.brook.client.TopicPartition;
import io.brook.client.admin.BrookAdmin;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerConfig;
import io.brook.client.consumer.ConsumerRebalanceListener;
import io.brook.client.consumer.ConsumerRecord;
import io.brook.client.consumer.OffsetResetStrategy;
import io.brook.client.consumer.RebalanceProtocol;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Review of issue 23, finding 4: a cooperative member subscribed by pattern keeps its partitions
 * while the group rebalances a deleted topic away. The fetch answers UNKNOWN_TOPIC for the deleted
 * topic's partition; the member reads its other partition on meanwhile (Kafka's fetcher handles
 * errors per partition) instead of retrying the whole fetch until the rebalance completes. The
 * rebalance cannot complete while the other member does not poll, so the records are read during it;
 * once it completes, the deleted topic's partition is revoked, not lost.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CooperativeDeletedTopicIT {
  @TempDir Path dir;

  static ConsumerConfig config(BrokerProcess broker) {
    return ConsumerConfig.builder().broker(broker.address()).groupId("coop-deleted")
        .sessionTimeout(Duration.ofSeconds(10)).maxPollInterval(Duration.ofMinutes(2))
        .fetchMaxWait(Duration.ofMillis(200)).autoOffsetReset(OffsetResetStrategy.EARLIEST)
        .rebalanceProtocol(RebalanceProtocol.COOPERATIVE).build();
  }

  @Test
  void aCooperativePatternMemberReadsOnWhileADeletedTopicIsRebalancedAway() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"))) {
      for (String topic : List.of("cx", "cy", "other")) {
        create(broker.channel(), topic, 1);
      }
      TopicPartition x = new TopicPartition("cx", 0);
      TopicPartition y = new TopicPartition("cy", 0);
      List<String> events = new ArrayList<>();
      try (BrookConsumer<String, String> member = new BrookConsumer<>(config(broker), Serdes.stringDeserializer(),
              Serdes.stringDeserializer());
          BrookConsumer<String, String> idler = new BrookConsumer<>(config(broker), Serdes.stringDeserializer(),
              Serdes.stringDeserializer())) {
        member.subscribe(Pattern.compile("c[xy]"), new ConsumerRebalanceListener() {
          @Override
          public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            events.add("revoked " + partitions);
          }

          @Override
          public void onPartitionsLost(Collection<TopicPartition> partitions) {
            events.add("lost " + partitions);
          }
        });
        idler.subscribe(List.of("other")); // owns none of member's partitions, but the group waits for it
        AtomicBoolean idlerPolls = new AtomicBoolean(true);
        AtomicBoolean stop = new AtomicBoolean();
        Thread idling = new Thread(() -> {
          while (!stop.get()) {
            if (idlerPolls.get()) {
              idler.poll(Duration.ofMillis(200));
            } else {
              LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
          }
        }, "idler");
        idling.start();
        try {
          pollUntil("both members in one generation", () -> member.assignment().equals(Set.of(x, y))
              && idler.groupMetadata().generation() == member.groupMetadata().generation(), new ArrayList<>(), member);
          produceValues(broker.channel(), "cx", 0, 2, "x-");
          produceValues(broker.channel(), "cy", 0, 2, "y-");
          List<ConsumerRecord<String, String>> read = new ArrayList<>();
          pollUntil("x and y read", () -> read.size() == 4, read, member);

          // From here the idler does not poll: the rebalance the deletion starts waits for it.
          idlerPolls.set(false);
          try (BrookAdmin admin = BrookAdmin.create(broker.address())) {
            admin.deleteTopic("cx");
          }
          produceValues(broker.channel(), "cy", 0, 3, "after-");
          read.clear();
          pollUntil("y's new records while the rebalance is under way", () -> {
            assertThat(member.assignment()).as("the rebalance waits for the idler").contains(x);
            return read.stream().filter(r -> r.value().startsWith("after-")).count() == 3;
          }, read, member);
          assertThat(read).extracting(ConsumerRecord::topic).containsOnly("cy");

          idlerPolls.set(true);
          pollUntil("x rebalanced away", () -> member.assignment().equals(Set.of(y)), new ArrayList<>(), member);
          assertThat(events).containsExactly("revoked [" + x + "]");
        } finally {
          stop.set(true);
          idling.join();
        }
      }
    }
  }

  private static void pollUntil(String what, BooleanSupplier done, List<ConsumerRecord<String, String>> read,
      BrookConsumer<String, String> consumer) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!done.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("not within 30 s: " + what + " (read " + read.size() + ")");
      }
      consumer.poll(Duration.ofMillis(200)).forEach(read::add);
    }
  }
}
