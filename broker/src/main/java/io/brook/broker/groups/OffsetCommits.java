package io.brook.broker.groups;

import io.brook.broker.disk.DiskWrite;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.topics.Partition;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The committed offsets of an offset-mode group, by journal key: checked, journaled, replayed and
 * snapshotted. Who may commit is the group's to decide; this holds what was committed. Guarded by
 * the group's monitor.
 */
final class OffsetCommits {
  static final int MAX_METADATA_BYTES = 4096;

  private final Group group;
  private final Map<Integer, CommittedOffset> byKey = new HashMap<>();

  OffsetCommits(Group group) {
    this.group = group;
  }

  /** Checks and journals each offset; a partition that fails does not fail the others. */
  List<CommitOutcome> commit(List<CommitRequest> offsets) {
    group.ctx.disk().check(DiskWrite.GROUP_COMMIT); // before anything changes: new keys are named in the same write
    long now = group.ctx.clock().millis();
    List<CommitOutcome> outcomes = new ArrayList<>();
    List<JournalEvent> events = new ArrayList<>();
    Map<Integer, CommittedOffset> done = new HashMap<>();
    for (CommitRequest c : offsets) {
      try {
        Partition p = group.ctx.topics().get(c.tp().topic()).partition(c.tp().partition());
        long end = p.endOffset();
        if (c.offset() < 0 || c.offset() > end) {
          throw Group.error(BrokerError.OFFSET_OUT_OF_RANGE, c.tp() + ": cannot commit offset " + c.offset()
              + ", the valid range is [0, " + end + "] (the end offset)");
        }
        int metadataBytes = c.metadata().getBytes(StandardCharsets.UTF_8).length; // the limit is Kafka's, in bytes
        if (metadataBytes > MAX_METADATA_BYTES) {
          throw Group.error(BrokerError.INVALID_REQUEST, c.tp() + ": metadata of " + metadataBytes + " bytes (UTF-8) is "
              + "longer than " + MAX_METADATA_BYTES + " bytes");
        }
        int key = group.keyOf(p, events);
        CommittedOffset co = new CommittedOffset(c.offset(), c.metadata(), now);
        events.add(new JournalEvent.Commit(key, co.offset(), co.timeMs(), co.metadata()));
        done.put(key, co);
        outcomes.add(new CommitOutcome(c.tp(), null));
      } catch (BrokerException e) {
        outcomes.add(new CommitOutcome(c.tp(), e));
      }
    }
    byKey.putAll(done); // before the append: an append that compacts snapshots the state, this commit included
    group.write(events);
    return outcomes;
  }

  /** Sets offsets unchecked (a reset, whose caller checked them). */
  void set(Map<Partition, Long> offsets) {
    group.ctx.disk().check(DiskWrite.GROUP_RESET);
    long now = group.ctx.clock().millis();
    List<JournalEvent> events = new ArrayList<>();
    Map<Integer, CommittedOffset> done = new HashMap<>();
    offsets.forEach((p, offset) -> {
      int key = group.keyOf(p, events);
      events.add(new JournalEvent.Commit(key, offset, now, ""));
      done.put(key, new CommittedOffset(offset, "", now));
    });
    byKey.putAll(done); // before the append, as in commit()
    group.write(events);
  }

  /** Every committed offset, by topic partition. */
  Map<TopicPartition, CommittedOffset> all() {
    Map<TopicPartition, CommittedOffset> out = new TreeMap<>();
    byKey.forEach((key, co) -> out.put(group.keyed(key).tp(), co));
    return out;
  }

  boolean isEmpty() {
    return byKey.isEmpty();
  }

  /** When the last commit was made, or Long.MIN_VALUE with none. */
  long lastCommitMs() {
    long last = Long.MIN_VALUE;
    for (CommittedOffset co : byKey.values()) {
      last = Math.max(last, co.timeMs());
    }
    return last;
  }

  void forget(List<Integer> keys) {
    keys.forEach(byKey::remove);
  }

  void replay(JournalEvent event) {
    if (event instanceof JournalEvent.Commit c) {
      byKey.put(c.key(), new CommittedOffset(c.offset(), c.metadata(), c.timeMs()));
    } else if (event instanceof JournalEvent.Forget f) {
      byKey.remove(f.key());
    }
  }

  void snapshot(List<JournalEvent> events) {
    byKey.forEach((key, co) -> events.add(new JournalEvent.Commit(key, co.offset(), co.timeMs(), co.metadata())));
  }
}
