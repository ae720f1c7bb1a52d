package io.brook.client.admin;

import java.util.List;
import java.util.Map;

/**
 * A topic as the broker describes it: its id (new at each creation), its effective config (every
 * key, defaults included), its partitions, and when it was created (ms since the epoch).
 */
public record TopicInfo(String name, String topicId, Map<String, String> config, List<PartitionInfo> partitions,
    long createdAtMs) {
  public TopicInfo {
    config = Map.copyOf(config);
    partitions = List.copyOf(partitions);
  }

  /** How many partitions the topic has. */
  public int partitionCount() {
    return partitions.size();
  }
}
