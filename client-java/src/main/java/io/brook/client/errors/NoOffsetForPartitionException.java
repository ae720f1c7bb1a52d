package io.brook.client.errors;

import io.brook.client.TopicPartition;
import java.util.Set;

/**
 * A partition has no committed offset and {@code auto.offset.reset} is {@code none}: the consumer
 * does not know where to start. Seek the partitions named by {@link #partitions()}, then poll again.
 */
public class NoOffsetForPartitionException extends BrookException {
  private static final long serialVersionUID = 1L;
  private final transient Set<TopicPartition> partitions;

  public NoOffsetForPartitionException(Set<TopicPartition> partitions, String message) {
    super("NO_OFFSET", message);
    this.partitions = Set.copyOf(partitions);
  }

  public Set<TopicPartition> partitions() {
    return partitions;
  }
}
