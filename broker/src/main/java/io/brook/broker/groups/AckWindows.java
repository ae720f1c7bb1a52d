package io.brook.broker.groups;

import io.brook.broker.delivery.AckPartition;
import io.brook.broker.delivery.Ranges;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.topics.Partition;
import io.brook.broker.topics.Topic;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An ack group's window on each partition it consumes ({@link AckPartition}), by journal key:
 * created where auto.offset.reset says, moved by resets and by retention, rebuilt from the journal
 * and written into its snapshots. Guarded by the group's monitor.
 */
final class AckWindows {
  private static final Logger log = LoggerFactory.getLogger(AckGroup.class);

  private final AckGroup group;
  private final Map<Integer, AckPartition> byKey = new LinkedHashMap<>();

  AckWindows(AckGroup group) {
    this.group = group;
  }

  Collection<AckPartition> all() {
    return byKey.values();
  }

  int size() {
    return byKey.size();
  }

  /** The group's window on a partition, found through its journal key; null when it has none. */
  AckPartition of(TopicPartition tp) {
    Group.Keyed k = group.keyed(tp);
    return k == null ? null : byKey.get(k.key());
  }

  AckPartition remove(int key) {
    return byKey.remove(key);
  }

  static TopicPartition tp(Partition p) {
    return new TopicPartition(p.topic().name(), p.index());
  }

  /** Creates the windows of partitions the group has not consumed yet, where auto.offset.reset says. */
  void ensure(Set<String> topics) {
    if (!group.ctx.disk().metadataAllowed()) {
      return; // their starts are journaled: the tick adds them once space is back
    }
    List<JournalEvent> events = new ArrayList<>();
    for (String t : topics) {
      Topic topic;
      try {
        topic = group.ctx.topics().get(t);
      } catch (BrokerException e) {
        continue;
      }
      boolean known = topic.partitions().stream().anyMatch(p -> of(tp(p)) != null);
      for (Partition p : topic.partitions()) {
        if (of(tp(p)) != null) {
          continue;
        }
        // A partition added to a topic the group already reads starts at its beginning: nothing is skipped.
        long start = !known && !group.config.startAtEarliest() ? p.endOffset() : p.startOffset();
        int key = group.keyOf(p, events);
        events.add(new JournalEvent.AckStart(key, start));
        add(new AckPartition(p, key, start));
      }
    }
    group.write(events);
  }

  /** Moves the start of partitions (a reset); discards their windows. */
  void restartAt(Map<Partition, Long> offsets) {
    List<JournalEvent> events = new ArrayList<>();
    offsets.forEach((p, offset) -> {
      int key = group.keyOf(p, events);
      AckPartition ap = byKey.get(key);
      if (ap == null) {
        ap = new AckPartition(p, key, offset);
        add(ap);
      }
      ap.restart(offset);
      events.add(new JournalEvent.AckStart(key, offset));
    });
    group.write(events);
  }

  /**
   * Retention deleted records of the window's partition: what the group had not settled there is
   * gone, so it is settled now (in {@code events}, leases handed back) and counted.
   */
  void dropDeleted(AckPartition ap, List<JournalEvent> events) {
    Partition p = ap.partition();
    long logStart = p.startOffset();
    long before = ap.deletedUnsettled();
    Ranges settled = new Ranges();
    boolean skipped = ap.dropBelow(logStart, settled);
    if (!settled.isEmpty()) {
      events.add(new JournalEvent.Settled(ap.key(), settled.toArray()));
    }
    if (skipped) {
      events.add(new JournalEvent.AckStart(ap.key(), ap.start()));
    }
    long dropped = ap.deletedUnsettled() - before;
    if (dropped > 0) {
      log.warn("Group {}: retention deleted {} records of {} before they were settled (the log now starts at {})",
          group.name(), dropped, p.name(), logStart);
    }
  }

  private void add(AckPartition ap) {
    byKey.put(ap.key(), ap);
  }

  /** Applies one replayed event of the windows. */
  void replay(JournalEvent event) {
    if (event instanceof JournalEvent.AckStart s) {
      Partition p = partitionOf(s.key());
      if (p != null) {
        AckPartition ap = byKey.get(s.key());
        if (ap == null) {
          add(new AckPartition(p, s.key(), s.start()));
        } else {
          ap.restart(s.start());
        }
      }
    } else if (event instanceof JournalEvent.AckWindow w) {
      Partition p = partitionOf(w.key());
      if (p != null) {
        AckPartition ap = new AckPartition(p, w.key(), w.start());
        ap.replayWindow(w.start(), w.next(), w.attempts());
        add(ap);
      }
    } else if (event instanceof JournalEvent.Delivered d) {
      AckPartition ap = byKey.get(d.key());
      if (ap != null) {
        long[] r = d.ranges();
        for (int i = 0; i < r.length; i += 2) {
          ap.replayDelivered(r[i], r[i + 1]);
        }
      }
    } else if (event instanceof JournalEvent.Undelivered u) {
      AckPartition ap = byKey.get(u.key());
      if (ap != null) {
        long[] r = u.ranges();
        for (int i = 0; i < r.length; i += 2) {
          ap.replayUndelivered(r[i], r[i + 1]);
        }
      }
    } else if (event instanceof JournalEvent.Settled st) {
      AckPartition ap = byKey.get(st.key());
      if (ap != null) {
        long[] r = st.ranges();
        for (int i = 0; i < r.length; i += 2) {
          ap.replaySettled(r[i], r[i + 1]);
        }
      }
    } else if (event instanceof JournalEvent.Forget f) {
      byKey.remove(f.key());
    }
  }

  private Partition partitionOf(int key) {
    Group.Keyed k = group.keyed(key);
    return k == null ? null : group.currentPartition(k);
  }

  void snapshot(List<JournalEvent> events) {
    for (AckPartition ap : byKey.values()) {
      events.add(new JournalEvent.AckWindow(ap.key(), ap.start(), ap.next(), ap.snapshot()));
    }
  }
}
