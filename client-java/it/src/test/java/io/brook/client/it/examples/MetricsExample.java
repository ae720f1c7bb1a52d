package io.brook.client.it.examples;

import io.brook.client.Serdes;
import io.brook.client.micrometer.BrookClientMetrics;
import io.brook.client.producer.BrookProducer;
import io.brook.client.producer.ProducerConfig;
import io.brook.client.producer.ProducerMetrics;
import io.brook.client.producer.ProducerRecord;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/** docs/CLIENTS.md's metrics example; ExamplesIT runs it against a real broker. Needs topic "orders" (or args[1]). */
public final class MetricsExample {
  public static void main(String[] args) {
    String broker = args.length > 0 ? args[0] : "localhost:7070";
    String topic = args.length > 1 ? args[1] : "orders";
    MeterRegistry registry = new SimpleMeterRegistry(); // or your PrometheusMeterRegistry, Spring Boot's, ...
    try (BrookProducer<String, String> producer = new BrookProducer<>(ProducerConfig.builder().broker(broker).build(),
            Serdes.stringSerializer(), Serdes.stringSerializer());
        BrookClientMetrics meters = BrookClientMetrics.bind(producer, registry, Tag.of("client", "orders-writer"))) {
      for (int i = 0; i < 10; i++) {
        producer.send(new ProducerRecord<>(topic, "customer-" + (i % 3), "order " + i));
      }
      producer.flush();
      System.out.println("records sent: " + registry.get("brook.producer.sent.records").functionCounter().count());
      ProducerMetrics m = producer.metrics(); // the same counters, without Micrometer
      System.out.printf("batches: %d, average batch: %.0f bytes, buffer used: %d of %d bytes%n", m.batchesSent(),
          m.averageBatchBytes(), m.bufferUsedBytes(), m.bufferTotalBytes());
    }
  }
}
