package io.brook.client;

import java.util.Objects;

/** One partition of a topic. */
public record TopicPartition(String topic, int partition) implements Comparable<TopicPartition> {
  public TopicPartition {
    Objects.requireNonNull(topic, "topic");
    if (partition < 0) {
      throw new IllegalArgumentException("partition must be >= 0, got " + partition);
    }
  }

  @Override
  public int compareTo(TopicPartition o) {
    int c = topic.compareTo(o.topic);
    return c != 0 ? c : Integer.compare(partition, o.partition);
  }

  @Override
  public String toString() {
    return topic + "-" + partition;
  }
}
