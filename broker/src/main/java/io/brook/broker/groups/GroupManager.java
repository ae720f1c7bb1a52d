package io.brook.broker.groups;

import io.brook.broker.disk.DiskWrite;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.errors.LimitExceededException;
import io.brook.broker.storage.LogFactory;
import io.brook.broker.topics.Partition;
import io.brook.broker.topics.Topic;
import io.brook.broker.topics.TopicName;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every group of the broker: created on first use or by CreateGroup, recovered from their journals
 * at start (after the topics), ticked by the broker's timer, deleted with their files.
 * Group directories live under {@code data/groups/NAME}.
 */
public final class GroupManager implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GroupManager.class);

  private final Path groupsDir;
  private final Path trashDir;
  private final GroupContext ctx;
  private final LogFactory logFactory;
  private final long compactAfter;
  private final Map<String, Group> groups = new ConcurrentHashMap<>();
  private int maxGroups = Integer.MAX_VALUE;
  /** group.offsets.retention.ms: how long an empty offset group is kept after its last activity. */
  private volatile long retentionMs = Long.MAX_VALUE;

  public GroupManager(Path dataDir, GroupContext ctx, LogFactory logFactory, long compactAfter) {
    this.groupsDir = dataDir.resolve("groups");
    this.trashDir = dataDir.resolve("trash");
    this.ctx = ctx;
    this.logFactory = logFactory;
    this.compactAfter = compactAfter;
    ctx.topics().onDelete(this::topicDeleted);
    ctx.topics().onLogStartAdvanced(this::logStartAdvanced);
  }

  /** The broker-wide limit (max.groups), set before recovery; unlimited until then. */
  public synchronized void limit(int maxGroups) {
    this.maxGroups = maxGroups;
  }

  /** group.offsets.retention.ms; -1 keeps empty groups for ever. */
  public void retention(long offsetsRetentionMs) {
    this.retentionMs = offsetsRetentionMs < 0 ? Long.MAX_VALUE : offsetsRetentionMs;
  }

  /** Opens every group found on disk (the topics must be recovered first). */
  public synchronized void recover() {
    try {
      Files.createDirectories(groupsDir);
      try (Stream<Path> dirs = Files.list(groupsDir)) {
        for (Path dir : dirs.sorted().toList()) {
          String dirName = dir.getFileName().toString();
          GroupJournal.Opened opened = GroupJournal.open(dir, logFactory, ctx.clock(), compactAfter);
          if (opened == null) {
            log.warn("Ignoring {}: no complete group journal (a creation cut short); removing it", dir);
            GroupJournal.deleteTree(dir);
            continue;
          }
          JournalEvent.Config c = (JournalEvent.Config) opened.events().stream()
              .filter(e -> e instanceof JournalEvent.Config).findFirst().orElseThrow(
                  () -> new IllegalStateException("group journal of " + dirName + " holds no config"));
          // A hashed directory's group is named by its journal; older journals by their directory.
          String name = opened.events().stream().filter(e -> e instanceof JournalEvent.Identity)
              .map(e -> ((JournalEvent.Identity) e).name()).findFirst().orElse(dirName);
          Group g = newGroup(name, c.mode(), GroupConfig.of(name, c.overrides()));
          g.attach(opened.journal());
          g.replayAll(opened.events());
          groups.put(name, g);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read groups in " + groupsDir + ": " + e.getMessage(), e);
    }
    if (!groups.isEmpty()) {
      log.info("Recovered {} groups", groups.size());
    }
    // Retention may have deleted records the journals still count as unsettled (the broker stopped
    // between the deletion and its notice).
    ctx.topics().allPartitions().forEach(this::logStartAdvanced);
  }

  private Group newGroup(String name, GroupMode mode, GroupConfig config) {
    return mode == GroupMode.ACK ? new AckGroup(name, ctx, config) : new OffsetGroup(name, ctx, config);
  }

  /** Creates a group named by gRPC's rule (a Brook name); ALREADY_EXISTS when it exists. */
  public synchronized Group create(String name, GroupMode mode, Map<String, String> config) {
    TopicName.check("group", name);
    return create(name, mode, config, false);
  }

  private Group create(String name, GroupMode mode, Map<String, String> config, boolean implicit) {
    GroupIds.check(name);
    if (mode == GroupMode.OFFSET && !config.isEmpty()) {
      throw offsetGroupsTakeNoConfig();
    }
    GroupConfig gc = GroupConfig.of(name, config);
    if (groups.containsKey(name)) {
      throw new BrokerException(BrokerError.GROUP_EXISTS, "group '" + name + "' already exists");
    }
    if (groups.size() >= maxGroups) {
      throw new LimitExceededException("max.groups", maxGroups, "cannot create group " + name + ": the broker holds "
          + groups.size() + " groups, its limit (max.groups=" + maxGroups + "); delete groups or raise max.groups");
    }
    ctx.disk().check(DiskWrite.GROUP_CREATE); // a new journal: a new memory-mapped file
    Group g = newGroup(name, mode, gc);
    g.implicit = implicit;
    String dirName = GroupIds.directoryOf(name);
    g.attach(GroupJournal.create(groupsDir.resolve(dirName), logFactory, ctx.clock(), compactAfter,
        List.of(new JournalEvent.Config(mode, gc.overrides()), new JournalEvent.Identity(name, implicit))));
    groups.put(name, g);
    log.info("Created {} group {}{}", mode.name().toLowerCase(), name, dirName.equals(name) ? ""
        : " (directory " + dirName + ")");
    return g;
  }

  public Group get(String name) {
    Group g = groups.get(name);
    if (g == null) {
      GroupIds.check(name);
      throw new BrokerException(BrokerError.UNKNOWN_GROUP, "unknown group '" + name + "'");
    }
    return g;
  }

  /** The group, or null. */
  public Group find(String name) {
    GroupIds.check(name);
    return groups.get(name);
  }

  /** The offset group, created when absent (JoinGroup, a commit from outside); refuses an ack group. */
  public OffsetGroup offsetGroup(String name, boolean create) {
    return (OffsetGroup) inMode(name, GroupMode.OFFSET, create, false,
        "is in ack mode: use AckService (Receive, Settle), not offset-mode calls");
  }

  /**
   * The offset group a Kafka client names (any id {@link GroupIds} allows), created when absent as an
   * implicit group: it goes once its last member left if it has no offsets.
   */
  public OffsetGroup kafkaGroup(String id, boolean create) {
    return (OffsetGroup) inMode(id, GroupMode.OFFSET, create, true,
        "is in ack mode (a share group to Kafka): Kafka consumers cannot use it");
  }

  /**
   * The ack group a Kafka share member names, created when absent under a Brook name (kept when its
   * members leave: its records' state is what a share group is); refuses an offset group.
   */
  public AckGroup kafkaShareGroup(String id, boolean create) {
    if (create && groups.get(id) == null) {
      checkAckName(id); // the refusal says why a Kafka group id must be a Brook name here
    }
    return (AckGroup) inMode(id, GroupMode.ACK, create, false, "is a consumer group (offset mode), not a share group");
  }

  /** The ack group, created when absent (Receive); refuses an offset group. */
  public AckGroup ackGroup(String name, boolean create) {
    return (AckGroup) inMode(name, GroupMode.ACK, create, false,
        "is in offset mode: join it with GroupService.JoinGroup, or use another group for ack mode");
  }

  private Group inMode(String name, GroupMode mode, boolean create, boolean kafka, String otherwise) {
    Group g = groups.get(name);
    if (g == null && create) {
      synchronized (this) {
        g = groups.get(name);
        if (g == null) {
          g = kafka ? create(name, mode, Map.of(), true) : create(name, mode, Map.of());
        }
      }
    }
    if (g == null) {
      g = get(name); // UNKNOWN_GROUP, or INVALID_REQUEST for a bad name (or the group made meanwhile)
    }
    if (g.mode() != mode) {
      throw new BrokerException(BrokerError.INCONSISTENT_GROUP_MODE, "group '" + name + "' " + otherwise);
    }
    return g;
  }

  private static BrokerException offsetGroupsTakeNoConfig() {
    return new BrokerException(BrokerError.INVALID_REQUEST, "offset-mode groups take no config: the group "
        + "config keys are for ack mode, and auto.offset.reset is a consumer setting in offset mode, as in Kafka");
  }

  /** UNKNOWN_TOPIC for the first topic that does not exist. */
  public void checkTopicsExist(List<String> topics) {
    topics.forEach(t -> ctx.topics().get(t));
  }

  public Collection<Group> list() {
    return new TreeMap<>(groups).values();
  }

  public Group alterConfig(String name, Map<String, String> set, List<String> remove) {
    Group g = get(name);
    if (g.mode() == GroupMode.OFFSET) {
      throw offsetGroupsTakeNoConfig();
    }
    g.alterConfig(set, remove);
    return g;
  }

  /**
   * An ack group is created only under a Brook name, whichever door asks: its dead-letter topic is
   * named after it by default.
   */
  private static void checkAckName(String name) {
    try {
      TopicName.check("group", name);
    } catch (BrokerException e) {
      throw new BrokerException(BrokerError.INVALID_REQUEST, e.getMessage() + " (an ack group, a share group to "
          + "Kafka, is created only under such a name)");
    }
  }

  /**
   * Sets and removes config keys of an ack group, creating it when absent (Kafka's GROUP config
   * resource: a share group's config may be set before the group has members); an offset group is
   * INCONSISTENT_GROUP_MODE. Validate-only checks the same and writes nothing.
   */
  public void configureAck(String name, Map<String, String> set, List<String> remove, boolean validateOnly) {
    Group g = find(name);
    if (g == null) {
      checkAckName(name);
      if (validateOnly) {
        GroupConfig.of(name, set);
        return;
      }
      synchronized (this) {
        if (groups.get(name) == null) {
          create(name, GroupMode.ACK, set);
          return;
        }
      }
      g = groups.get(name);
    }
    if (g.mode() != GroupMode.ACK) {
      throw new BrokerException(BrokerError.INCONSISTENT_GROUP_MODE, "group '" + name + "' is in offset mode (a "
          + "consumer group to Kafka): its config is the broker's, and ack-mode (share group) keys do not apply");
    }
    if (validateOnly) {
      g.config().with(set, remove);
    } else {
      g.alterConfig(set, remove);
    }
  }

  /**
   * Committed offsets (ack mode: the lowest unsettled offsets) of the topics a caller may see;
   * empty for an unknown group.
   */
  public Map<TopicPartition, CommittedOffset> committed(String name, Predicate<String> topics) {
    Map<TopicPartition, CommittedOffset> all = committed(name);
    if (all.keySet().stream().allMatch(tp -> topics.test(tp.topic()))) {
      return all;
    }
    Map<TopicPartition, CommittedOffset> shown = new TreeMap<>(all);
    shown.keySet().removeIf(tp -> !topics.test(tp.topic()));
    return shown;
  }

  private Map<TopicPartition, CommittedOffset> committed(String name) {
    Group g = find(name);
    if (g instanceof OffsetGroup o) {
      return o.committed();
    }
    if (g instanceof AckGroup a) {
      return a.committed();
    }
    return Map.of();
  }

  /** A position a reset moves partitions to. */
  public sealed interface ResetTo permits ResetTo.Offset, ResetTo.Time, ResetTo.Earliest, ResetTo.Latest {
    record Offset(long offset) implements ResetTo {}

    record Time(long timestampMs) implements ResetTo {}

    record Earliest() implements ResetTo {}

    record Latest() implements ResetTo {}
  }

  /** Per partition: the offset set, or why not. */
  public record ResetOutcome(TopicPartition tp, long offset, BrokerException error) {}

  /**
   * Moves committed offsets while the group has no members. {@code partitions} maps topics to
   * partitions (an empty list: all of the topic); an empty map: every partition the group has on
   * the topics the caller may reset ({@code resettable}; the topics a request names are the
   * caller's to check).
   */
  public List<ResetOutcome> reset(String name, Map<String, List<Integer>> partitions, ResetTo to, boolean dryRun,
      Predicate<String> resettable) {
    Group g = get(name);
    synchronized (g) {
      if (g instanceof OffsetGroup o) {
        o.requireEmpty("reset the offsets of");
      } else {
        ((AckGroup) g).requireNoStreams("reset the offsets of");
      }
      List<TopicPartition> targets = new ArrayList<>();
      if (partitions.isEmpty()) {
        targets.addAll(committed(name, resettable).keySet());
      }
      List<ResetOutcome> outcomes = new ArrayList<>();
      partitions.forEach((topic, list) -> {
        try {
          Topic t = ctx.topics().get(topic);
          if (list.isEmpty()) {
            for (int p = 0; p < t.partitionCount(); p++) {
              targets.add(new TopicPartition(topic, p));
            }
          } else {
            list.forEach(p -> targets.add(new TopicPartition(topic, p)));
          }
        } catch (BrokerException e) {
          outcomes.add(new ResetOutcome(new TopicPartition(topic, -1), -1, e));
        }
      });
      Map<Partition, Long> set = new java.util.LinkedHashMap<>();
      for (TopicPartition tp : targets) {
        try {
          Partition p = ctx.topics().get(tp.topic()).partition(tp.partition());
          long offset;
          if (to instanceof ResetTo.Offset off) {
            offset = off.offset();
            p.checkInRange(offset);
          } else if (to instanceof ResetTo.Time time) {
            offset = p.offsetForTimestamp(time.timestampMs());
          } else if (to instanceof ResetTo.Earliest) {
            offset = p.startOffset();
          } else {
            offset = p.endOffset();
          }
          set.put(p, offset);
          outcomes.add(new ResetOutcome(tp, offset, null));
        } catch (BrokerException e) {
          outcomes.add(new ResetOutcome(tp, -1, e));
        }
      }
      if (!dryRun && !set.isEmpty()) {
        if (g instanceof OffsetGroup o) {
          o.setOffsets(set);
        } else {
          ((AckGroup) g).restartAt(set);
        }
        log.info("Group {}: offsets of {} partitions reset", name, set.size());
      }
      return outcomes;
    }
  }

  /** Deletes a group with no members, and its files. */
  public synchronized void delete(String name) {
    Group g = get(name);
    synchronized (g) {
      if (g instanceof OffsetGroup o) {
        o.requireEmpty("delete");
      } else {
        ((AckGroup) g).requireNoStreams("delete");
      }
      remove(g);
    }
    log.info("Deleted group {}", name);
  }

  /** Deletes an offset group that expired (see {@link OffsetGroup#expired}), if it still has. */
  private synchronized void expire(OffsetGroup g, long now) {
    synchronized (g) {
      if (groups.get(g.name()) != g || !g.expired(now, retentionMs)) {
        return;
      }
      remove(g);
    }
    log.info("Deleted group {}: {}", g.name(), g.implicit() && g.committed().isEmpty()
        ? "its last member left and it has no committed offsets"
        : "empty for group.offsets.retention.ms (" + retentionMs + " ms)");
  }

  /** Takes the group out and its files away. Callers hold this manager's monitor and the group's. */
  private void remove(Group g) {
    String name = g.name();
    g.closeMembers("group '" + name + "' was deleted"); // calls parked on it (a join in its first delay) end now
    g.markDeleted();
    groups.remove(name);
    g.closeJournal(false);
    // Not the name: "group-" + a 249-character name + a UUID is over the 255-byte limit of file names,
    // the move failed, and the deleted group came back at the next start.
    Path trashed = trashDir.resolve("group-" + UUID.randomUUID());
    try {
      Files.createDirectories(trashDir);
      Files.move(groupsDir.resolve(GroupIds.directoryOf(name)), trashed, StandardCopyOption.ATOMIC_MOVE);
      GroupJournal.deleteTree(trashed);
    } catch (IOException | UncheckedIOException e) {
      log.warn("Group {} deleted, but its files could not all be removed yet: {}", name, e.getMessage());
    }
  }

  /** Runs timeouts of every group (sessions, rebalances, leases): the broker's timer calls it often. */
  public void tick() {
    long now = ctx.clock().millis();
    for (Group g : groups.values()) {
      try {
        g.tick(now);
        if (g instanceof OffsetGroup o && o.expired(now, retentionMs)) {
          expire(o, now);
        }
      } catch (RuntimeException e) {
        log.warn("Group {}: timeout check failed: {}", g.name(), e.toString());
      }
    }
  }

  private void logStartAdvanced(io.brook.broker.topics.Partition p) {
    for (Group g : groups.values()) {
      if (g instanceof AckGroup a) {
        a.logStartAdvanced(p);
      }
    }
  }

  private void topicDeleted(Topic topic) {
    for (Group g : groups.values()) {
      g.topicDeleted(topic);
    }
  }

  /** Ends member calls (Receive streams, pending joins): the broker is stopping. */
  public void closeMembers() {
    for (Group g : groups.values()) {
      try {
        g.closeMembers("the broker is shutting down: reconnect and resume");
      } catch (RuntimeException e) {
        log.warn("Group {}: closing its members failed: {}", g.name(), e.toString());
      }
    }
  }

  /** Forces and closes every journal (a clean stop). */
  @Override
  public synchronized void close() {
    for (Group g : groups.values()) {
      try {
        g.markDeleted(); // no dispatch after this
        g.closeJournal(true);
      } catch (RuntimeException e) {
        log.warn("Group {}: close failed: {}", g.name(), e.toString());
      }
    }
    groups.clear();
  }
}
