package io.brook.broker.core;

import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A topic as admin calls describe it: its identity, effective config and each partition's state now.
 *
 * @param config every key with its effective value (the topic's overrides over the broker's defaults)
 * @param overrides the keys set on the topic itself (the others follow the broker's defaults)
 */
public record TopicInfo(String name, UUID id, long createdAtMs, Map<String, String> config,
    Map<String, String> overrides, List<PartitionInfo> partitions) {

  /**
   * @param segmentRoll the roll's label ("HOUR", ...), fixed when the partition was created
   * @param forceCount forces done for SYNCED produces
   * @param producerCount idempotent producers it keeps state for
   */
  public record PartitionInfo(int partition, long logStartOffset, long endOffset, long sizeBytes, String segmentRoll,
      int segmentCount, long forceCount, int producerCount) {}
}
