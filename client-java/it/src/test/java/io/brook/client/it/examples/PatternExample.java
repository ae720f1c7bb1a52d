package io.brook.client.it.examples;

import io.brook.client.Serdes;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerConfig;
import io.brook.client.consumer.ConsumerRecord;
import io.brook.client.consumer.OffsetResetStrategy;
import java.time.Duration;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * docs/CLIENTS.md's example of subscribe(Pattern); ExamplesIT runs it against a real broker. Reads
 * every topic whose name starts with "orders-" (say orders-eu and orders-us, not refunds) and prints
 * what the pattern matched.
 */
public final class PatternExample {
  public static void main(String[] args) {
    String broker = args.length > 0 ? args[0] : "localhost:7070";
    ConsumerConfig config = ConsumerConfig.builder().broker(broker).groupId("all-orders")
        .autoOffsetReset(OffsetResetStrategy.EARLIEST).build();
    try (BrookConsumer<String, String> consumer =
        new BrookConsumer<>(config, Serdes.stringDeserializer(), Serdes.stringDeserializer())) {
      // Matched by the broker, at every rebalance: an orders-* topic created later is read too.
      consumer.subscribe(Pattern.compile("orders-.*"));
      int emptyPolls = 0;
      while (emptyPolls < 5) {
        var records = consumer.poll(Duration.ofMillis(500));
        emptyPolls = records.isEmpty() ? emptyPolls + 1 : 0;
        for (ConsumerRecord<String, String> r : records) {
          System.out.println("read " + r.topic() + "-" + r.partition() + "@" + r.offset() + " " + r.value());
        }
      }
      System.out.println("subscribed to " + new TreeSet<>(consumer.subscription()));
    }
  }
}
