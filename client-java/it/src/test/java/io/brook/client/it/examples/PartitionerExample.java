package io.brook.client.it.examples;

import io.brook.client.Serdes;
import io.brook.client.admin.PartitionInfo;
import io.brook.client.producer.BrookProducer;
import io.brook.client.producer.Partitioner;
import io.brook.client.producer.ProducerConfig;
import io.brook.client.producer.ProducerRecord;
import java.nio.charset.StandardCharsets;

/**
 * docs/CLIENTS.md's partitioner example; ExamplesIT runs it against a real broker. Needs topic
 * "audit" (several partitions): records keyed "vip-..." go to the last partition, other keys share
 * the rest.
 */
public final class PartitionerExample {
  public static void main(String[] args) {
    String broker = args.length > 0 ? args[0] : "localhost:7070";
    // VIP customers get the last partition to themselves; other keys share the rest.
    Partitioner vipsLast = (topic, key, value, partitions) -> {
      if (key == null || partitions == 1) {
        return 0;
      }
      return new String(key, StandardCharsets.UTF_8).startsWith("vip-")
          ? partitions - 1
          : Partitioner.partitionForKey(key, partitions - 1);
    };
    ProducerConfig config = ProducerConfig.builder().broker(broker).partitioner(vipsLast).build();
    try (BrookProducer<String, String> producer =
        new BrookProducer<>(config, Serdes.stringSerializer(), Serdes.stringSerializer())) {
      for (PartitionInfo p : producer.partitionsFor("audit")) {
        System.out.println("audit-" + p.partition() + " holds " + p.records() + " records");
      }
      var md = producer.sendSync(new ProducerRecord<>("audit", "vip-7", "logged in"));
      System.out.println("vip-7 went to " + md.topicPartition());
    }
  }
}
