package io.brook.broker.topics;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.errors.LimitExceededException;
import io.brook.broker.storage.Directories;
import io.brook.broker.storage.LogFactory;
import io.brook.broker.storage.LogOptions;
import io.brook.broker.storage.PartitionLog;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.storage.StorageException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates, finds, changes and deletes topics, and recovers them at start.
 *
 * <p>Layout under the data directory: {@code topics/NAME/topic.properties} and one directory per
 * partition, {@code topics/NAME/N/}. A topic is staged under {@code staging/} and renamed into place,
 * and deleted by renaming it under {@code trash/} before removing its files, so a crash never leaves
 * a half topic visible. Admin calls are rare: they are serialized on this object; lookups are not.
 */
public final class TopicManager implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TopicManager.class);
  public static final int MAX_PARTITIONS = 10_000;

  private final Path topicsDir;
  private final Path stagingDir;
  private final Path trashDir;
  private final TopicConfig defaults;
  private final int defaultPartitions;
  private final LogFactory logFactory;
  private final InstantSource clock;
  private final Map<String, Topic> topics = new ConcurrentHashMap<>();
  private final Map<String, TopicMetadata> metadata = new ConcurrentHashMap<>();
  private final List<Consumer<Topic>> deletionListeners = new CopyOnWriteArrayList<>();
  private int maxTopics = Integer.MAX_VALUE;
  private int maxPartitions = Integer.MAX_VALUE;
  private final List<Consumer<Partition>> logStartListeners = new CopyOnWriteArrayList<>();

  /** @param defaultPartitions the partition count of topics created without one (default.partitions) */
  public TopicManager(Path dataDir, TopicConfig defaults, int defaultPartitions, LogFactory logFactory,
      InstantSource clock) {
    this.topicsDir = dataDir.resolve("topics");
    this.stagingDir = dataDir.resolve("staging");
    this.trashDir = dataDir.resolve("trash");
    this.defaults = defaults;
    this.defaultPartitions = defaultPartitions;
    this.logFactory = logFactory;
    this.clock = clock;
  }

  /** The broker-wide limits (max.topics, max.partitions), set before recovery; unlimited until then. */
  public synchronized void limits(int maxTopics, int maxPartitions) {
    this.maxTopics = maxTopics;
    this.maxPartitions = maxPartitions;
  }

  /** Opens every topic found on disk and clears what a crash left in staging and trash. */
  public synchronized void recover() {
    try {
      Files.createDirectories(topicsDir);
      Directories.deleteTree(stagingDir);
      Directories.deleteTree(trashDir);
      try (Stream<Path> dirs = Files.list(topicsDir)) {
        for (Path dir : dirs.sorted().toList()) {
          if (!Files.exists(dir.resolve(TopicMetadata.FILE))) {
            log.warn("Ignoring {}: no {} (not a topic)", dir, TopicMetadata.FILE);
            continue;
          }
          TopicMetadata m = TopicMetadata.readMigrating(dir);
          open(m);
        }
      }
    } catch (IOException e) {
      throw new StorageException("cannot read topics in " + topicsDir + ": " + e.getMessage(), e);
    }
  }

  private Topic open(TopicMetadata m) {
    Topic topic = new Topic(m.name(), m.id(), m.createdAtMs(), TopicConfig.of(defaults, m.overrides(), List.of()));
    try {
      for (int i = 0; i < m.rolls().size(); i++) {
        topic.addPartition(openPartition(topic, i, m.rolls().get(i)));
      }
    } catch (RuntimeException e) {
      topic.close();
      throw e;
    }
    topics.put(m.name(), topic);
    metadata.put(m.name(), m);
    return topic;
  }

  private Partition openPartition(Topic topic, int index, SegmentRoll roll) {
    Path dir = topicsDir.resolve(topic.name()).resolve(Integer.toString(index));
    PartitionLog partitionLog = logFactory.open(dir, new LogOptions(roll, clock, false));
    try {
      return new Partition(topic, index, partitionLog, roll, dir);
    } catch (RuntimeException e) {
      partitionLog.close();
      throw e;
    }
  }

  public Topic get(String name) {
    Topic t = topics.get(name);
    if (t == null) {
      TopicName.check(name);
      throw new BrokerException(BrokerError.UNKNOWN_TOPIC, "unknown topic '" + name + "'");
    }
    return t;
  }

  public Collection<Topic> list() {
    return new TreeMap<>(topics).values();
  }

  public synchronized Topic create(String name, int partitions, Map<String, String> config) {
    TopicName.check(name);
    int count = partitions == 0 ? defaultPartitions : partitions;
    checkPartitionCount(count);
    TopicConfig effective = defaults.withOverrides(config);
    if (topics.containsKey(name)) {
      throw new BrokerException(BrokerError.TOPIC_EXISTS, "topic '" + name + "' already exists");
    }
    if (topics.size() >= maxTopics) {
      throw new LimitExceededException("max.topics", maxTopics, "cannot create topic " + name + ": the broker holds "
          + topics.size() + " topics, its limit (max.topics=" + maxTopics + "); delete topics or raise max.topics");
    }
    checkTotalPartitions(name, count);
    List<SegmentRoll> rolls = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      rolls.add(effective.segmentRoll());
    }
    TopicMetadata m = new TopicMetadata(UUID.randomUUID(), name, clock.millis(), new TreeMap<>(config), rolls);
    Path staged = stagingDir.resolve(m.id().toString());
    try {
      Files.createDirectories(staged);
      m.write(staged);
      Files.move(staged, topicsDir.resolve(name), StandardCopyOption.ATOMIC_MOVE);
      TopicMetadata.forceDirectory(topicsDir);
    } catch (IOException e) {
      throw new BrokerException(BrokerError.STORAGE_ERROR, "cannot create topic " + name + ": " + e.getMessage());
    }
    Topic topic = open(m);
    log.info("Created topic {} ({} partition{}, id {}, config {})", name, count, count == 1 ? "" : "s", m.id(),
        config);
    return topic;
  }

  public synchronized Topic alterConfig(String name, Map<String, String> set, Collection<String> remove) {
    Topic topic = get(name);
    if (set.containsKey(TopicConfig.SEGMENT_ROLL) || remove.contains(TopicConfig.SEGMENT_ROLL)) {
      throw new BrokerException(BrokerError.INVALID_REQUEST,
          "segment.roll is fixed when a partition is created and cannot be altered");
    }
    Map<String, String> overrides = new TreeMap<>(topic.config().overrides());
    overrides.putAll(set);
    TopicConfig updated = TopicConfig.of(defaults, overrides, remove);
    TopicMetadata m = metadata.get(name).withOverrides(updated.overrides());
    m.write(topicsDir.resolve(name));
    metadata.put(name, m);
    topic.config(updated);
    log.info("Altered topic {}: set {} removed {}", name, set, remove);
    return topic;
  }

  public synchronized Topic addPartitions(String name, int total) {
    Topic topic = get(name);
    int current = topic.partitionCount();
    if (total <= current) {
      throw new BrokerException(BrokerError.INVALID_REQUEST, "topic " + name + " has " + current
          + " partitions; the new total must be larger (partitions never shrink), got " + total);
    }
    checkPartitionCount(total);
    checkTotalPartitions(name, total - current);
    List<SegmentRoll> rolls = new ArrayList<>(metadata.get(name).rolls());
    while (rolls.size() < total) {
      rolls.add(topic.config().segmentRoll());
    }
    // Metadata first: after a crash, recovery opens (creates) the partitions the file names.
    TopicMetadata m = metadata.get(name).withPartitions(rolls);
    m.write(topicsDir.resolve(name));
    metadata.put(name, m);
    for (int i = current; i < total; i++) {
      topic.addPartition(openPartition(topic, i, rolls.get(i)));
    }
    log.info("Topic {} grew from {} to {} partitions", name, current, total);
    return topic;
  }

  /** Deletes a topic, then tells the listeners (outside this manager's lock: they take their own). */
  public void delete(String name) {
    Topic topic = deleteTopic(name);
    for (Consumer<Topic> listener : deletionListeners) {
      listener.accept(topic);
    }
  }

  private synchronized Topic deleteTopic(String name) {
    Topic topic = get(name);
    TopicMetadata m = metadata.get(name);
    topics.remove(name);
    metadata.remove(name);
    topic.close(); // waits for reads in flight; waiters are woken and see the topic gone
    Path trashed = trashDir.resolve(topic.id().toString());
    try {
      Files.createDirectories(trashDir);
      Files.move(topicsDir.resolve(name), trashed, StandardCopyOption.ATOMIC_MOVE);
      TopicMetadata.forceDirectory(topicsDir);
    } catch (IOException e) {
      open(m); // nothing was removed: the topic stays, and the caller learns why
      throw new BrokerException(BrokerError.STORAGE_ERROR, "cannot delete topic " + name + ": " + e.getMessage());
    }
    try {
      Directories.deleteTree(trashed);
    } catch (IOException | UncheckedIOException e) {
      // The topic is gone (no longer under topics/); recovery empties trash/ at the next start.
      log.warn("Topic {} deleted, but its files in {} could not all be removed yet: {}", name, trashed, e.getMessage());
    }
    log.info("Deleted topic {} (id {})", name, topic.id());
    return topic;
  }

  /** Tells {@code listener} of each deleted topic (groups forget its offsets and leases). */
  public void onDelete(Consumer<Topic> listener) {
    deletionListeners.add(listener);
  }

  /** Tells {@code listener} of each partition whose log start retention advanced (ack groups settle). */
  public void onLogStartAdvanced(Consumer<Partition> listener) {
    logStartListeners.add(listener);
  }

  void logStartAdvanced(Partition p) {
    for (Consumer<Partition> listener : logStartListeners) {
      try {
        listener.accept(p);
      } catch (RuntimeException e) { // a failing listener must not stop retention of the other partitions
        log.warn("After retention of {}: {}", p.name(), e.toString());
      }
    }
  }

  private static void checkPartitionCount(int count) {
    if (count < 1 || count > MAX_PARTITIONS) {
      throw new BrokerException(BrokerError.INVALID_REQUEST,
          "partition count must be between 1 and " + MAX_PARTITIONS + ", got " + count);
    }
  }

  /** Refuses {@code adding} more partitions when they would take the broker over max.partitions. */
  private void checkTotalPartitions(String topic, int adding) {
    int held = 0;
    for (Topic t : topics.values()) {
      held += t.partitionCount();
    }
    if ((long) held + adding > maxPartitions) {
      throw new LimitExceededException("max.partitions", maxPartitions, "cannot add " + adding + " partition"
          + (adding == 1 ? "" : "s") + " for topic " + topic + ": the broker holds " + held + " of at most "
          + maxPartitions + " partitions (max.partitions); delete topics or raise max.partitions");
    }
  }

  /** Every partition of every topic, for background work (snapshots, expiry). */
  public List<Partition> allPartitions() {
    List<Partition> all = new ArrayList<>();
    topics.values().forEach(t -> all.addAll(t.partitions()));
    return all;
  }

  @Override
  public synchronized void close() {
    allPartitions().forEach(Partition::snapshotProducers); // a clean stop rebuilds from the snapshot alone
    topics.values().forEach(Topic::close);
    topics.clear();
  }
}
