package io.brook.client.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.client.TopicPartition;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConsumerRecordsTest {
  static ConsumerRecord<String, String> rec(String topic, int p, long offset) {
    return new ConsumerRecord<>(topic, p, offset, 0, null, "v" + offset, List.of());
  }

  @Test
  void groupsByPartitionAndCountsAndIteratesPartitionByPartition() {
    TopicPartition a = new TopicPartition("t", 0);
    TopicPartition b = new TopicPartition("t", 1);
    Map<TopicPartition, List<ConsumerRecord<String, String>>> m = new LinkedHashMap<>();
    m.put(a, List.of(rec("t", 0, 4), rec("t", 0, 5)));
    m.put(b, List.of(rec("t", 1, 9)));
    m.put(new TopicPartition("t", 2), List.of());
    ConsumerRecords<String, String> r = new ConsumerRecords<>(m);
    assertThat(r.count()).isEqualTo(3);
    assertThat(r.partitions()).containsExactly(a, b);
    assertThat(r.records(a)).extracting(ConsumerRecord::offset).containsExactly(4L, 5L);
    assertThat(r.records(new TopicPartition("x", 0))).isEmpty();
    assertThat(r).extracting(ConsumerRecord::value).containsExactly("v4", "v5", "v9");
    assertThat(ConsumerRecords.empty().isEmpty()).isTrue();
  }
}
