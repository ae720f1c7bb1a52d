package io.brook.client.internal;

import io.brook.client.admin.PartitionInfo;
import io.brook.protocol.v1.PartitionDescription;
import io.brook.protocol.v1.TopicDescription;
import java.util.ArrayList;
import java.util.List;

/** A topic's partitions as every client shows them: the admin's describeTopic and partitionsFor. */
public final class PartitionInfos {
  private PartitionInfos() {}

  public static List<PartitionInfo> of(TopicDescription t) {
    List<PartitionInfo> partitions = new ArrayList<>(t.getPartitionsCount());
    for (PartitionDescription p : t.getPartitionsList()) {
      partitions.add(new PartitionInfo(p.getPartition(), p.getLogStartOffset(), p.getEndOffset(), p.getSizeBytes(),
          p.getSegmentRoll(), p.getSegmentCount(), p.getForceCount(), p.getProducerCount()));
    }
    return List.copyOf(partitions);
  }
}
