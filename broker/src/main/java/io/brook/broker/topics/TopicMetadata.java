package io.brook.broker.topics;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.storage.StorageException;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What is persisted of a topic, in {@code topic.properties}: id, name, creation time, the config
 * keys set on the topic, and each partition's segment roll. Written whole to a temporary file,
 * forced, then renamed over the old one, so a crash leaves the old or the new file, never half.
 *
 * <p>{@code config.names} says which names the config keys carry: absent (files written before
 * issue 25), {@code max.message.bytes} is Brook's per-record limit and reads as
 * {@code max.record.bytes}; {@code 2}, it is Kafka's per-batch limit (D46).
 */
record TopicMetadata(UUID id, String name, long createdAtMs, Map<String, String> overrides, List<SegmentRoll> rolls) {
  static final String FILE = "topic.properties";
  private static final Logger log = LoggerFactory.getLogger(TopicMetadata.class);
  private static final String CONFIG_NAMES = "config.names";
  private static final String CONFIG_NAMES_KAFKA = "2";

  void write(Path topicDir) {
    Properties p = new Properties();
    p.setProperty("id", id.toString());
    p.setProperty("name", name);
    p.setProperty("created.at.ms", Long.toString(createdAtMs));
    p.setProperty("partitions", Integer.toString(rolls.size()));
    for (int i = 0; i < rolls.size(); i++) {
      p.setProperty("partition." + i + ".segment.roll", rolls.get(i).label());
    }
    p.setProperty(CONFIG_NAMES, CONFIG_NAMES_KAFKA);
    overrides.forEach((k, v) -> p.setProperty("config." + k, v));
    Path tmp = topicDir.resolve(FILE + ".tmp");
    try {
      try (Writer w = Files.newBufferedWriter(tmp)) {
        p.store(w, "Brook topic metadata: do not edit while the broker runs");
      }
      try (FileChannel c = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        c.force(true);
      }
      Files.move(tmp, topicDir.resolve(FILE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      forceDirectory(topicDir);
    } catch (IOException e) {
      throw new BrokerException(BrokerError.STORAGE_ERROR, "cannot write metadata of topic " + name + ": " + e.getMessage());
    }
  }

  /** A rename is durable only once its directory is forced (power loss, not kill -9). */
  static void forceDirectory(Path dir) throws IOException {
    try (FileChannel c = FileChannel.open(dir, StandardOpenOption.READ)) {
      c.force(true);
    }
  }

  /**
   * Reads the file, and when it was written before the config names changed, writes it again with
   * the names migrated: once, so the file says what it means, and a broker from before the change
   * refuses it at start (it does not know the {@code config.names} key) instead of misreading it.
   */
  static TopicMetadata readMigrating(Path topicDir) {
    Properties p = load(topicDir);
    TopicMetadata m = parse(p, topicDir);
    if (!CONFIG_NAMES_KAFKA.equals(p.getProperty(CONFIG_NAMES))) {
      m.write(topicDir);
      log.info("Topic {}: metadata migrated to the config names of issue 25 (max.record.bytes is the per-record "
          + "limit once called max.message.bytes); overrides now {}", m.name(), m.overrides());
    }
    return m;
  }

  private static Properties load(Path topicDir) {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(topicDir.resolve(FILE))) {
      p.load(r);
      return p;
    } catch (IOException e) {
      throw new StorageException("unreadable metadata in " + topicDir.resolve(FILE) + ": " + e, e);
    }
  }

  private static TopicMetadata parse(Properties p, Path topicDir) {
    try {
      int count = Integer.parseInt(p.getProperty("partitions"));
      List<SegmentRoll> rolls = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        rolls.add(SegmentRoll.parse(p.getProperty("partition." + i + ".segment.roll")));
      }
      Map<String, String> overrides = new TreeMap<>();
      for (String key : p.stringPropertyNames()) {
        if (key.startsWith("config.") && !key.equals(CONFIG_NAMES)) {
          overrides.put(key.substring("config.".length()), p.getProperty(key));
        }
      }
      if (!CONFIG_NAMES_KAFKA.equals(p.getProperty(CONFIG_NAMES))) {
        migrateNames(overrides);
      }
      return new TopicMetadata(UUID.fromString(p.getProperty("id")), p.getProperty("name"),
          Long.parseLong(p.getProperty("created.at.ms")), overrides, rolls);
    } catch (RuntimeException e) {
      throw new StorageException("unreadable metadata in " + topicDir.resolve(FILE) + ": " + e, e);
    }
  }

  /** Brook's per-record limit was called max.message.bytes before Kafka's meaning took that name. */
  private static void migrateNames(Map<String, String> overrides) {
    String perRecord = overrides.remove(TopicConfig.MAX_MESSAGE_BYTES);
    if (perRecord != null) {
      overrides.put(TopicConfig.MAX_RECORD_BYTES, perRecord);
    }
  }

  TopicMetadata withPartitions(List<SegmentRoll> newRolls) {
    return new TopicMetadata(id, name, createdAtMs, overrides, newRolls);
  }

  TopicMetadata withOverrides(Map<String, String> newOverrides) {
    return new TopicMetadata(id, name, createdAtMs, newOverrides, rolls);
  }
}
