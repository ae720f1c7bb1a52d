package io.brook.broker.groups;

import java.util.Comparator;

/** A partition of a topic, by name: how groups refer to what they consume. */
public record TopicPartition(String topic, int partition) implements Comparable<TopicPartition> {
  private static final Comparator<TopicPartition> ORDER =
      Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

  @Override
  public int compareTo(TopicPartition o) {
    return ORDER.compare(this, o);
  }

  @Override
  public String toString() {
    return topic + "-" + partition;
  }
}
