package io.brook.client.it.examples;

import io.brook.client.Serdes;
import io.brook.client.TopicPartition;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerConfig;
import io.brook.client.consumer.ConsumerRecord;
import io.brook.client.consumer.OffsetAndMetadata;
import io.brook.client.consumer.OffsetResetStrategy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * docs/CLIENTS.md's example of partitionsFor, pause/resume and commit metadata; ExamplesIT runs it
 * against a real broker. Needs topic "invoices" with two partitions: it reads partition 0 while
 * partition 1 is paused, commits with metadata, then resumes partition 1.
 */
public final class OffsetsExample {
  public static void main(String[] args) {
    String broker = args.length > 0 ? args[0] : "localhost:7070";
    ConsumerConfig config = ConsumerConfig.builder().broker(broker).groupId("invoicing")
        .autoOffsetReset(OffsetResetStrategy.EARLIEST).enableAutoCommit(false).build();
    try (BrookConsumer<String, String> consumer =
        new BrookConsumer<>(config, Serdes.stringDeserializer(), Serdes.stringDeserializer())) {
      List<TopicPartition> partitions = consumer.partitionsFor("invoices").stream()
          .map(p -> new TopicPartition("invoices", p.partition())).toList();
      consumer.assign(partitions);
      TopicPartition first = partitions.get(0);
      TopicPartition second = partitions.get(1);

      consumer.pause(List.of(second)); // e.g. its downstream is busy: nothing of it is fetched
      for (int polls = 0; polls < 5; polls++) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          System.out.println("read " + r.topic() + "-" + r.partition() + "@" + r.offset() + " " + r.value());
        }
      }
      // The next offset to read, with a note the group keeps beside it.
      consumer.commitSync(Map.of(first, new OffsetAndMetadata(consumer.position(first), "batch-17")));
      OffsetAndMetadata stored = consumer.committed(Set.of(first)).get(first);
      System.out.println("committed " + first + " at " + stored.offset() + " (" + stored.metadata() + ")");

      consumer.resume(List.of(second));
      System.out.println("paused now: " + consumer.paused());
    }
  }
}
