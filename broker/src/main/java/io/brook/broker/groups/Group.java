package io.brook.broker.groups;

import io.brook.broker.disk.DiskWrite;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.topics.Partition;
import io.brook.broker.topics.Topic;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What both kinds of group share: a name, a config, a journal, and the keys that name topic
 * partitions in the journal. Every method that changes state runs under the group's monitor and
 * appends its journal events before it answers.
 */
public abstract sealed class Group permits OffsetGroup, AckGroup {
  protected final String name;
  protected final GroupContext ctx;
  protected GroupConfig config;
  protected GroupJournal journal;
  private final Map<Integer, Keyed> byKey = new HashMap<>();
  private final Map<TopicPartition, Keyed> byTp = new HashMap<>();
  private int nextKey;
  private volatile boolean deleted;
  /** Created by a Kafka join or commit: it goes once it is empty with no offsets (GroupManager's tick). */
  protected boolean implicit;

  /** A journal key: a topic partition of one incarnation of its topic. */
  protected record Keyed(int key, TopicPartition tp, UUID topicId) {}

  protected Group(String name, GroupContext ctx, GroupConfig config) {
    this.name = name;
    this.ctx = ctx;
    this.config = config;
  }

  public String name() {
    return name;
  }

  /** Whether a Kafka join or commit created it, rather than CreateGroup or a gRPC call. */
  public synchronized boolean implicit() {
    return implicit;
  }

  public abstract GroupMode mode();

  public synchronized GroupConfig config() {
    return config;
  }

  /** Members, as ListGroups counts them. */
  public abstract int memberCount();

  public abstract GroupState state();

  /** The protocol its members speak or last spoke (NONE for ack mode). */
  public abstract GroupProtocol protocol();

  /** Kafka's protocol type: "consumer" for consumer groups (Brook's offset-mode members too), "" when none. */
  public abstract String protocolType();

  /** The state under Kafka's name ("Empty", "Stable", ...). */
  public abstract String kafkaState();

  public abstract GroupView describe();

  /** Session and lease timeouts, due redeliveries: run by the broker's ticker. */
  abstract void tick(long nowMs);

  /** Applies one replayed event (the base handles config and keys). */
  protected abstract void replay(JournalEvent event);

  /** After the replay: drop state of topics that are gone, rebuild what is derived. */
  protected abstract void afterReplay();

  /** The events that rebuild this group's state (without config and keys: the base adds those). */
  protected abstract List<JournalEvent> snapshotState();

  /** Forgets the state of a deleted topic. */
  abstract void topicDeleted(Topic topic);

  /** Closes member streams and pending calls: the broker stops or the group is deleted. */
  abstract void closeMembers(String why);

  synchronized void alterConfig(Map<String, String> set, List<String> remove) {
    ctx.disk().check(DiskWrite.GROUP_CONFIG);
    GroupConfig changed = config.with(set, remove);
    requireNotDeleted();
    journal.append(new JournalEvent.Config(mode(), changed.overrides()));
    config = changed;
    configChanged();
  }

  protected void configChanged() {}

  final void attach(GroupJournal j) {
    journal = j;
  }

  final void replayAll(List<JournalEvent> events) {
    for (JournalEvent e : events) {
      if (e instanceof JournalEvent.Config c) {
        config = GroupConfig.of(name, c.overrides());
      } else if (e instanceof JournalEvent.Identity i) {
        implicit = i.implicit();
      } else if (e instanceof JournalEvent.PartitionKey k) {
        Keyed keyed = new Keyed(k.key(), new TopicPartition(k.topic(), k.partition()), k.topicId());
        Keyed old = byTp.put(keyed.tp(), keyed);
        if (old != null) {
          byKey.remove(old.key());
        }
        byKey.put(k.key(), keyed);
        nextKey = Math.max(nextKey, k.key() + 1);
      } else if (e instanceof JournalEvent.Forget f) {
        Keyed keyed = byKey.remove(f.key());
        if (keyed != null) {
          byTp.remove(keyed.tp());
        }
        replay(e);
      } else if (!(e instanceof JournalEvent.SnapshotEnd)) {
        replay(e);
      }
    }
    // Keys of topics deleted (or deleted and created again) while the broker was down.
    for (Keyed k : new ArrayList<>(byKey.values())) {
      if (currentPartition(k) == null) {
        byKey.remove(k.key());
        byTp.remove(k.tp());
        replay(new JournalEvent.Forget(k.key()));
      }
    }
    afterReplay();
  }

  /** The journal key of a partition; names it in {@code events} the first time. */
  protected int keyOf(Partition p, List<JournalEvent> events) {
    TopicPartition tp = new TopicPartition(p.topic().name(), p.index());
    Keyed k = byTp.get(tp);
    if (k != null && k.topicId().equals(p.topic().id())) {
      return k.key();
    }
    if (k != null) {
      byKey.remove(k.key());
    }
    Keyed fresh = new Keyed(nextKey++, tp, p.topic().id());
    byKey.put(fresh.key(), fresh);
    byTp.put(tp, fresh);
    events.add(new JournalEvent.PartitionKey(fresh.key(), tp.topic(), fresh.topicId(), tp.partition()));
    return fresh.key();
  }

  protected Keyed keyed(int key) {
    return byKey.get(key);
  }

  /** The key of a topic partition the group has state for, or null. */
  protected Keyed keyed(TopicPartition tp) {
    return byTp.get(tp);
  }

  /** Drops the key of a topic partition; the event that says so goes into {@code events}. */
  protected void forgetKey(Keyed k, List<JournalEvent> events) {
    byKey.remove(k.key());
    byTp.remove(k.tp());
    events.add(new JournalEvent.Forget(k.key()));
  }

  /** Drops the keys of a deleted topic; returns them. */
  protected List<Integer> forgetTopic(Topic topic) {
    List<Integer> gone = new ArrayList<>();
    for (Keyed k : new ArrayList<>(byKey.values())) {
      if (k.tp().topic().equals(topic.name()) && k.topicId().equals(topic.id())) {
        byKey.remove(k.key());
        byTp.remove(k.tp());
        gone.add(k.key());
      }
    }
    List<JournalEvent> events = new ArrayList<>();
    gone.forEach(key -> events.add(new JournalEvent.Forget(key)));
    if (!deleted && ctx.disk().metadataAllowed()) { // else recovery forgets keys of deleted topics itself
      journal.append(events);
    }
    return gone;
  }

  /** Appends, and compacts the journal when it has grown enough. Callers hold the monitor. */
  protected void write(List<JournalEvent> events) {
    if (events.isEmpty()) {
      return;
    }
    requireNotDeleted();
    journal.append(events);
    if (journal.needsCompaction() && ctx.disk().metadataAllowed()) { // else at a later write, once space is back
      journal.compact(snapshot());
    }
  }

  /** The whole state as events: config, keys, then the mode's own. */
  synchronized List<JournalEvent> snapshot() {
    List<JournalEvent> events = new ArrayList<>();
    events.add(new JournalEvent.Config(mode(), config.overrides()));
    events.add(new JournalEvent.Identity(name, implicit));
    for (Keyed k : byKey.values()) {
      events.add(new JournalEvent.PartitionKey(k.key(), k.tp().topic(), k.topicId(), k.tp().partition()));
    }
    events.addAll(snapshotState());
    return events;
  }

  /** The topic partition, when its topic still exists as the one the group knew. */
  protected Partition currentPartition(Keyed k) {
    try {
      Topic t = ctx.topics().get(k.tp().topic());
      if (!t.id().equals(k.topicId()) || k.tp().partition() >= t.partitionCount()) {
        return null;
      }
      return t.partition(k.tp().partition());
    } catch (BrokerException e) {
      return null;
    }
  }

  /**
   * A call that found the group just before DeleteGroup took it (and closed its journal) gets the
   * answer it would get a moment later, not a storage error. Callers hold the monitor, as delete does.
   */
  private void requireNotDeleted() {
    if (deleted) {
      throw error(BrokerError.UNKNOWN_GROUP, "group '" + name + "' was deleted");
    }
  }

  void markDeleted() {
    deleted = true;
  }

  boolean isDeleted() {
    return deleted;
  }

  synchronized void closeJournal(boolean flush) {
    if (flush) {
      journal.flush();
    }
    journal.close();
  }

  protected static BrokerException error(BrokerError e, String message) {
    return new BrokerException(e, message);
  }
}
