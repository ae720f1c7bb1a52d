package io.brook.client.producer;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.client.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Keyless records go a batch at a time to each partition in turn. */
class StickyPartitionTest {
  @Test
  void eachClosedBatchMovesKeylessRecordsToTheNextPartition() {
    RecordAccumulator acc = new RecordAccumulator(ProducerConfig.builder().batchSize(130).build(),
        new java.util.concurrent.Semaphore(0));
    byte[] value = new byte[40];
    int size = KafkaRecordSize.max(null, value, List.of());
    List<Integer> chosen = new ArrayList<>();
    acc.lock.lock();
    try {
      for (int i = 0; i < 12; i++) {
        int p = acc.keylessPartition("t", 3, size);
        chosen.add(p);
        acc.append(new TopicPartition("t", p), size, null, value, List.of(), 7L, new CompletableFuture<>(), 0);
      }
    } finally {
      acc.lock.unlock();
    }
    // A 130-byte batch holds two 40-byte records (47 bytes each in a Kafka batch, 76 reserved for the
    // longest varints): pairs, then the next partition.
    int first = chosen.get(0);
    for (int i = 0; i < chosen.size(); i++) {
      assertThat(chosen.get(i)).as("record %d", i).isEqualTo((first + i / 2) % 3);
    }
  }
}
