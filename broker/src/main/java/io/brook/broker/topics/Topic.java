package io.brook.broker.topics;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

/** A topic: a name, an id unique to this creation, its config and its partitions. */
public final class Topic {
  private final String name;
  private final UUID id;
  private final long createdAtMs;
  private volatile TopicConfig config;
  private final List<Partition> partitions = new CopyOnWriteArrayList<>();
  private final AtomicInteger nextKeylessPartition = new AtomicInteger();
  private final TopicTraffic traffic = new TopicTraffic();

  Topic(String name, UUID id, long createdAtMs, TopicConfig config) {
    this.name = name;
    this.id = id;
    this.createdAtMs = createdAtMs;
    this.config = config;
  }

  public String name() {
    return name;
  }

  /** Records in and out since start, for metrics. */
  public TopicTraffic traffic() {
    return traffic;
  }

  public UUID id() {
    return id;
  }

  public long createdAtMs() {
    return createdAtMs;
  }

  public TopicConfig config() {
    return config;
  }

  void config(TopicConfig c) {
    config = c;
  }

  public List<Partition> partitions() {
    return List.copyOf(partitions);
  }

  public int partitionCount() {
    return partitions.size();
  }

  public Partition partition(int index) {
    List<Partition> ps = partitions;
    if (index < 0 || index >= ps.size()) {
      throw new BrokerException(BrokerError.UNKNOWN_PARTITION, "topic " + name + " has no partition " + index
          + " (it has " + ps.size() + (ps.size() == 1 ? " partition: 0)" : " partitions: 0 to " + (ps.size() - 1) + ")"));
    }
    return ps.get(index);
  }

  /** Where the broker puts a batch's keyless records: the next partition, round robin per batch. */
  public int nextKeylessPartition() {
    return Math.floorMod(nextKeylessPartition.getAndIncrement(), partitions.size());
  }

  void addPartition(Partition p) {
    partitions.add(p);
  }

  void close() {
    partitions.forEach(Partition::close);
  }
}
