package io.brook.client.consumer;

import io.brook.client.TopicPartition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** What one poll returned, grouped by partition; within a partition the records are in offset order. */
public final class ConsumerRecords<K, V> implements Iterable<ConsumerRecord<K, V>> {
  private static final ConsumerRecords<?, ?> EMPTY = new ConsumerRecords<>(Map.of());

  private final Map<TopicPartition, List<ConsumerRecord<K, V>>> byPartition;
  private final int count;

  public ConsumerRecords(Map<TopicPartition, List<ConsumerRecord<K, V>>> byPartition) {
    Map<TopicPartition, List<ConsumerRecord<K, V>>> copy = new LinkedHashMap<>();
    int n = 0;
    for (Map.Entry<TopicPartition, List<ConsumerRecord<K, V>>> e : byPartition.entrySet()) {
      if (!e.getValue().isEmpty()) {
        copy.put(e.getKey(), List.copyOf(e.getValue()));
        n += e.getValue().size();
      }
    }
    this.byPartition = Collections.unmodifiableMap(copy);
    this.count = n;
  }

  @SuppressWarnings("unchecked")
  public static <K, V> ConsumerRecords<K, V> empty() {
    return (ConsumerRecords<K, V>) EMPTY;
  }

  /** The records of one partition (empty when it returned none). */
  public List<ConsumerRecord<K, V>> records(TopicPartition partition) {
    return byPartition.getOrDefault(partition, List.of());
  }

  /** The partitions that returned records. */
  public Set<TopicPartition> partitions() {
    return byPartition.keySet();
  }

  public int count() {
    return count;
  }

  public boolean isEmpty() {
    return count == 0;
  }

  /** Every record, partition by partition. */
  public List<ConsumerRecord<K, V>> asList() {
    List<ConsumerRecord<K, V>> all = new ArrayList<>(count);
    byPartition.values().forEach(all::addAll);
    return all;
  }

  @Override
  public Iterator<ConsumerRecord<K, V>> iterator() {
    return asList().iterator();
  }
}
