package io.brook.client.internal;

import io.brook.protocol.v1.PartitionDescription;
import io.brook.protocol.v1.TopicDescription;
import java.util.ArrayList;
import java.util.List;

/**
 * A topic's partitions as every client shows them: the admin's describeTopic and partitionsFor. The
 * caller names the client's type by its constructor ({@code PartitionInfo::new}), so this package
 * does not depend on the admin package that depends on it.
 */
public final class PartitionInfos {
  private PartitionInfos() {}

  /** Makes the client's description of one partition from the broker's fields. */
  @FunctionalInterface
  public interface PartitionFactory<P> {
    P make(int partition, long logStartOffset, long endOffset, long sizeBytes, String segmentRoll, int segmentCount,
        long forceCount, int producerCount);
  }

  public static <P> List<P> of(TopicDescription t, PartitionFactory<P> factory) {
    List<P> partitions = new ArrayList<>(t.getPartitionsCount());
    for (PartitionDescription p : t.getPartitionsList()) {
      partitions.add(factory.make(p.getPartition(), p.getLogStartOffset(), p.getEndOffset(), p.getSizeBytes(),
          p.getSegmentRoll(), p.getSegmentCount(), p.getForceCount(), p.getProducerCount()));
    }
    return List.copyOf(partitions);
  }
}
