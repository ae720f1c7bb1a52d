package io.brook.broker.core;

import io.brook.broker.disk.DiskGuard;
import io.brook.broker.disk.DiskWrite;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.topics.Partition;
import io.brook.broker.topics.Topic;
import io.brook.broker.topics.TopicManager;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/** Topic admin for every door: create, describe, alter, grow and delete topics. Plain and synchronous. */
public final class TopicAdmin {
  private final TopicManager topics;
  private final DiskGuard disk;

  public TopicAdmin(TopicManager topics, DiskGuard disk) {
    this.topics = topics;
    this.disk = disk;
  }

  /** @param partitions 0 for the broker's default.partitions */
  public TopicInfo create(String name, int partitions, Map<String, String> config) {
    if (partitions < 0) {
      throw new BrokerException(BrokerError.INVALID_REQUEST, "partitions must be >= 0 (0: the default), got "
          + partitions);
    }
    disk.check(DiskWrite.TOPIC_CREATE); // new partitions are new memory-mapped files, there only to take data
    return describe(topics.create(name, partitions, config));
  }

  /** Every topic, by name. */
  public List<TopicInfo> list() {
    List<TopicInfo> all = new ArrayList<>();
    topics.list().forEach(t -> all.add(describe(t)));
    return all;
  }

  public TopicInfo describe(String name) {
    return describe(topics.get(name));
  }

  public TopicInfo alterConfig(String name, Map<String, String> set, Collection<String> remove) {
    return describe(topics.alterConfig(name, set, remove));
  }

  /** Grows a topic to {@code total} partitions (partitions never shrink). */
  public TopicInfo createPartitions(String name, int total) {
    disk.check(DiskWrite.TOPIC_CREATE);
    return describe(topics.addPartitions(name, total));
  }

  public void delete(String name) {
    topics.delete(name);
  }

  private static TopicInfo describe(Topic t) {
    List<TopicInfo.PartitionInfo> partitions = new ArrayList<>();
    for (Partition p : t.partitions()) {
      partitions.add(new TopicInfo.PartitionInfo(p.index(), p.startOffset(), p.endOffset(), p.sizeBytes(),
          p.segmentRoll().label(), p.segmentCount(), p.forceCount(), p.producerCount()));
    }
    return new TopicInfo(t.name(), t.id(), t.createdAtMs(), t.config().effective(), partitions);
  }
}
