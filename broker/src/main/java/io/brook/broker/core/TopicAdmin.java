package io.brook.broker.core;

import io.brook.broker.disk.DiskGuard;
import io.brook.broker.disk.DiskWrite;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.InternalTopic;
import io.brook.broker.topics.Partition;
import io.brook.broker.topics.Topic;
import io.brook.broker.topics.TopicManager;
import io.brook.broker.topics.TopicName;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;

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
    refuseReserved(name);
    if (partitions < 0) {
      throw new BrokerException(BrokerError.INVALID_REQUEST, "partitions must be >= 0 (0: the default), got "
          + partitions);
    }
    disk.check(DiskWrite.TOPIC_CREATE); // new partitions are new memory-mapped files, there only to take data
    return describe(topics.create(name, partitions, config));
  }

  /**
   * Every check {@link #create} makes (name, count, config, existence, limits, disk), creating nothing.
   *
   * @return the partition count the topic would get
   */
  public int checkCreate(String name, int partitions, Map<String, String> config) {
    refuseReserved(name);
    if (partitions < 0) {
      throw new BrokerException(BrokerError.INVALID_REQUEST, "partitions must be >= 0 (0: the default), got "
          + partitions);
    }
    int count = topics.checkCreate(name, partitions, config);
    disk.check(DiskWrite.TOPIC_CREATE);
    return count;
  }

  private static void refuseReserved(String name) {
    if (InternalTopic.CONSUMER_OFFSETS.name().equals(name)) { // Kafka's offsets topic, shown by the Kafka door
      throw new BrokerException(BrokerError.TOPIC_EXISTS, "topic " + name + " exists for Kafka clients as an internal "
          + "topic; Brook keeps committed offsets in its group journals, not in a topic");
    }
  }

  /**
   * Checks a topic name alone, for doors that answer a bad name with a code of its own (Kafka's
   * INVALID_TOPIC_EXCEPTION).
   *
   * @throws BrokerException INVALID_REQUEST saying what is wrong with it
   */
  public static void checkName(String name) {
    TopicName.check(name);
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

  /** The topic with this id, or null. */
  public TopicInfo describe(UUID id) {
    Topic t = topics.byId(id);
    return t == null ? null : describe(t);
  }

  /** The name of the topic with this id, or null: cheap enough for every Produce and Fetch. */
  public String nameOf(UUID id) {
    Topic t = topics.byId(id);
    return t == null ? null : t.name();
  }

  /** The id of the topic with this name, or null when there is none. */
  public UUID idOf(String name) {
    try {
      return topics.get(name).id();
    } catch (BrokerException e) {
      return null;
    }
  }

  /** Every check {@link #alterConfig} makes, changing nothing. */
  public void checkAlterConfig(String name, Map<String, String> set, Collection<String> remove) {
    topics.checkAlterConfig(name, set, remove);
  }

  /** Every check {@link #createPartitions} makes (count, limits, disk), adding none. */
  public void checkCreatePartitions(String name, int total) {
    topics.checkAddPartitions(name, total);
    disk.check(DiskWrite.TOPIC_CREATE);
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
    return new TopicInfo(t.name(), t.id(), t.createdAtMs(), t.config().effective(), t.config().overrides(),
        partitions);
  }
}
