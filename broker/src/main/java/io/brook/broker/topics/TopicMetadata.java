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

/**
 * What is persisted of a topic, in {@code topic.properties}: id, name, creation time, the config
 * keys set on the topic, and each partition's segment roll. Written whole to a temporary file,
 * forced, then renamed over the old one, so a crash leaves the old or the new file, never half.
 */
record TopicMetadata(UUID id, String name, long createdAtMs, Map<String, String> overrides, List<SegmentRoll> rolls) {
  static final String FILE = "topic.properties";

  void write(Path topicDir) {
    Properties p = new Properties();
    p.setProperty("id", id.toString());
    p.setProperty("name", name);
    p.setProperty("created.at.ms", Long.toString(createdAtMs));
    p.setProperty("partitions", Integer.toString(rolls.size()));
    for (int i = 0; i < rolls.size(); i++) {
      p.setProperty("partition." + i + ".segment.roll", rolls.get(i).label());
    }
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

  static TopicMetadata read(Path topicDir) {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(topicDir.resolve(FILE))) {
      p.load(r);
      int count = Integer.parseInt(p.getProperty("partitions"));
      List<SegmentRoll> rolls = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        rolls.add(SegmentRoll.parse(p.getProperty("partition." + i + ".segment.roll")));
      }
      Map<String, String> overrides = new TreeMap<>();
      for (String key : p.stringPropertyNames()) {
        if (key.startsWith("config.")) {
          overrides.put(key.substring("config.".length()), p.getProperty(key));
        }
      }
      return new TopicMetadata(UUID.fromString(p.getProperty("id")), p.getProperty("name"),
          Long.parseLong(p.getProperty("created.at.ms")), overrides, rolls);
    } catch (IOException | RuntimeException e) {
      throw new StorageException("unreadable metadata in " + topicDir.resolve(FILE) + ": " + e, e);
    }
  }

  TopicMetadata withPartitions(List<SegmentRoll> newRolls) {
    return new TopicMetadata(id, name, createdAtMs, overrides, newRolls);
  }

  TopicMetadata withOverrides(Map<String, String> newOverrides) {
    return new TopicMetadata(id, name, createdAtMs, newOverrides, rolls);
  }
}
