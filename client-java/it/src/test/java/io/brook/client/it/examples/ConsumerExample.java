package io.brook.client.it.examples;

import io.brook.client.Serdes;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerConfig;
import io.brook.client.consumer.ConsumerRecord;
import io.brook.client.consumer.OffsetResetStrategy;
import java.time.Duration;
import java.util.List;

/**
 * The consumer example of docs/CLIENTS.md: joins group "greeters" on topic "greetings", prints
 * every record, and stops after five empty polls in a row. What poll returned is committed by auto
 * commit (at the next poll and at close), so a second run prints only what is new.
 *
 * <p>Run: {@code java ... io.brook.client.it.examples.ConsumerExample localhost:7070}
 */
public final class ConsumerExample {
  public static void main(String[] args) {
    String broker = args.length > 0 ? args[0] : "localhost:7070";
    ConsumerConfig config = ConsumerConfig.builder()
        .broker(broker)
        .groupId("greeters")
        .autoOffsetReset(OffsetResetStrategy.EARLIEST) // a new group starts at the oldest record
        .build();
    try (BrookConsumer<String, String> consumer =
        new BrookConsumer<>(config, Serdes.stringDeserializer(), Serdes.stringDeserializer())) {
      consumer.subscribe(List.of("greetings"));
      int emptyPolls = 0;
      while (emptyPolls < 5) {
        var records = consumer.poll(Duration.ofMillis(500));
        emptyPolls = records.isEmpty() ? emptyPolls + 1 : 0;
        for (ConsumerRecord<String, String> r : records) {
          System.out.printf("%s-%d@%d %s=%s%n", r.topic(), r.partition(), r.offset(), r.key(), r.value());
        }
      }
    } // close: commits the positions and leaves the group
  }
}
