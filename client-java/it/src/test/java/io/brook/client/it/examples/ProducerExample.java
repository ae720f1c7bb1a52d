package io.brook.client.it.examples;

import io.brook.client.Serdes;
import io.brook.client.producer.BrookProducer;
import io.brook.client.producer.ProducerConfig;
import io.brook.client.producer.ProducerRecord;
import io.brook.client.producer.RecordMetadata;
import java.time.Duration;

/** docs/CLIENTS.md's producer example; ExamplesIT runs it against a real broker. Needs topic "orders". */
public final class ProducerExample {
  public static void main(String[] args) {
    String broker = args.length > 0 ? args[0] : "localhost:7070";
    ProducerConfig config = ProducerConfig.builder()
        .broker(broker)
        .linger(Duration.ofMillis(5)) // wait up to 5 ms to fill a batch
        .build();                     // idempotent by default: retries never duplicate
    try (BrookProducer<String, String> producer =
        new BrookProducer<>(config, Serdes.stringSerializer(), Serdes.stringSerializer())) {
      // Asynchronous: send returns a CompletableFuture<RecordMetadata>.
      for (int i = 0; i < 10; i++) {
        producer.send(new ProducerRecord<>("orders", "customer-" + (i % 3), "order " + i))
            .whenComplete((md, error) -> {
              if (error != null) {
                System.err.println("order not written: " + error.getMessage());
              }
            });
      }
      // Synchronous: wait for the broker's answer (or its typed exception).
      RecordMetadata md = producer.sendSync(new ProducerRecord<>("orders", "customer-1", "order 10"));
      System.out.println("order 10 is at " + md.topicPartition() + " offset " + md.offset());
      producer.flush(); // every record sent so far is answered
    }
  }
}
