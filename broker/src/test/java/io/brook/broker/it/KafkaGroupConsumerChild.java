package io.brook.broker.it;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A KIP-848 consumer in a JVM of its own, for KafkaGroupConsumerIT to kill (SIGKILL: no leave, its
 * heartbeats just stop). Arguments: bootstrap, group, topic. It polls until killed.
 */
public final class KafkaGroupConsumerChild {
  private KafkaGroupConsumerChild() {}

  public static void main(String[] args) {
    Properties p = new Properties();
    p.put("bootstrap.servers", args[0]);
    p.put("group.id", args[1]);
    p.put("group.protocol", "consumer");
    p.put("enable.auto.commit", false);
    p.put("auto.offset.reset", "earliest");
    try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
      c.subscribe(List.of(args[2]));
      while (true) {
        c.poll(Duration.ofMillis(100));
        System.out.println("assigned " + c.assignment());
      }
    }
  }
}
