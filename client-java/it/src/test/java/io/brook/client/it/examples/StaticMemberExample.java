package io.brook.client.it.examples;

import io.brook.client.Serdes;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerConfig;
import io.brook.client.consumer.ConsumerRecord;
import io.brook.client.consumer.OffsetResetStrategy;
import java.time.Duration;
import java.util.List;
import java.util.TreeSet;

/**
 * docs/CLIENTS.md's static-membership example; ExamplesIT runs it against a real broker. Needs topic
 * "tasks" with two partitions. The same consumer runs twice, as a process that restarts: the second
 * run takes the first's place in the group with the same partitions and generation (no rebalance).
 */
public final class StaticMemberExample {
  public static void main(String[] args) {
    String broker = args.length > 0 ? args[0] : "localhost:7070";
    for (int run = 1; run <= 2; run++) {
      ConsumerConfig config = ConsumerConfig.builder().broker(broker).groupId("billing")
          .groupInstanceId("billing-host-1") // stable across restarts, e.g. the host or pod name
          .sessionTimeout(Duration.ofSeconds(30)) // a restart within it moves no partition
          .autoOffsetReset(OffsetResetStrategy.EARLIEST).build();
      try (BrookConsumer<String, String> consumer =
          new BrookConsumer<>(config, Serdes.stringDeserializer(), Serdes.stringDeserializer())) {
        consumer.subscribe(List.of("tasks"));
        int read = 0;
        for (int polls = 0; polls < 5; polls++) {
          for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
            read++;
          }
        }
        System.out.println("run " + run + ": " + new TreeSet<>(consumer.assignment()) + ", generation "
            + consumer.groupMetadata().generation() + ", " + read + " records");
      } // close commits (auto commit) but does not leave: the group keeps the member for the next run
    }
  }
}
