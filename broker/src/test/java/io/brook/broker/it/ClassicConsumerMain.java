package io.brook.broker.it;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A classic-protocol group consumer in a process of its own, so a test can kill it (-9) and the
 * broker must notice through its session timeout alone. It prints "ASSIGNED n" on each assignment
 * and "R value" for each record once the commit covering it succeeded.
 * Arguments: bootstrap group topic.
 */
public final class ClassicConsumerMain {
  private ClassicConsumerMain() {}

  public static void main(String[] args) {
    Properties p = KafkaGroupClassicIT.consumerProps(args[1], "killed", Map.of());
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p, new StringDeserializer(),
        new StringDeserializer())) {
      consumer.subscribe(List.of(args[2]), new ConsumerRebalanceListener() {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
          System.out.println("ASSIGNED " + partitions.size());
          System.out.flush();
        }
      });
      while (true) {
        ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
        if (records.isEmpty()) {
          continue;
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (ConsumerRecord<String, String> r : records) {
          offsets.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
        }
        try {
          consumer.commitSync(offsets);
        } catch (KafkaException e) { // a rebalance took them: whoever owns them next reads them again
          continue;
        }
        records.forEach(r -> System.out.println("R " + r.value()));
        System.out.flush();
      }
    }
  }
}
