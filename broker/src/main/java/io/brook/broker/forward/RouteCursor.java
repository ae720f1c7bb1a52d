package io.brook.broker.forward;

import io.brook.broker.core.GroupService;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.CommitOutcome;
import io.brook.broker.groups.CommitRequest;
import io.brook.broker.groups.CommittedOffset;
import io.brook.broker.groups.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A route's durable position: the committed offsets of the internal offset group
 * {@code __forward.<route>} (D68), committed from outside the group (it has no members), only for
 * records Kafka acknowledged. The commits' metadata says whether the route is paused, so a restart
 * keeps a pause. Operators see the group with {@code brook group describe} and may reset it while the
 * route is paused.
 */
final class RouteCursor {
  private static final Logger log = LoggerFactory.getLogger(RouteCursor.class);
  static final String GROUP_PREFIX = "__forward.";
  static final String PAUSED = "paused";

  private final GroupService groups;
  private final String group;
  /** The last offsets committed, so a pause can be written with them. */
  private final Map<TopicPartition, Long> committed = new HashMap<>();
  private boolean paused;
  private long lastRefusalLogMs;

  RouteCursor(GroupService groups, String route) {
    this.groups = groups;
    this.group = GROUP_PREFIX + route;
  }

  String group() {
    return group;
  }

  /** Reads the committed offsets (and the pause) again: at start, and after a resume (a reset may have moved them). */
  synchronized Map<TopicPartition, Long> load() {
    committed.clear();
    boolean anyPaused = false;
    for (Map.Entry<TopicPartition, CommittedOffset> e : groups.committed(group, List.of(), t -> true)) {
      if (e.getValue() != null) {
        committed.put(e.getKey(), e.getValue().offset());
        anyPaused |= PAUSED.equals(e.getValue().metadata());
      }
    }
    paused = anyPaused;
    return new HashMap<>(committed);
  }

  /** The offsets last committed or loaded. */
  synchronized Map<TopicPartition, Long> committed() {
    return new HashMap<>(committed);
  }

  /**
   * Unmarks the pause, durably, on the offsets the group holds now (an operator may have reset them
   * while the route was paused). False as {@link #mark}.
   */
  synchronized boolean resume() {
    load();
    return mark(false);
  }

  synchronized boolean paused() {
    return paused;
  }

  /**
   * Commits {@code offsets} (next offsets to forward), marked paused or not as the route is now.
   *
   * A refusal (the group has members, the disk is full) is logged, not thrown: Kafka has the records,
   * so the route goes on; after a restart they may come again.
   */
  synchronized void commit(Map<TopicPartition, Long> offsets) {
    if (offsets.isEmpty()) {
      return;
    }
    List<CommitRequest> requests = new ArrayList<>(offsets.size());
    offsets.forEach((tp, offset) -> requests.add(new CommitRequest(tp, offset, paused ? PAUSED : "")));
    try {
      for (CommitOutcome o : groups.commit(group, "", 0, requests, null)) {
        if (o.error() == null) {
          committed.put(o.tp(), offsets.get(o.tp()));
        } else {
          refused(o.error().getMessage());
        }
      }
    } catch (BrokerException e) { // the disk is full, the group has members: records may come twice after a restart
      refused(e.getMessage());
    }
  }

  private void refused(String why) {
    long now = System.currentTimeMillis();
    if (now - lastRefusalLogMs >= 60_000) { // one line a minute while it lasts
      lastRefusalLogMs = now;
      log.warn("Forward route cursor {} not committed: {}", group, why);
    }
  }

  /**
   * Marks the route paused or not, durably: the last committed offsets are committed again with the
   * mark. False when there is nothing to mark it on yet (no partition forwarded): the mark then
   * lasts until a restart.
   */
  synchronized boolean mark(boolean pause) {
    paused = pause;
    if (committed.isEmpty()) {
      return false;
    }
    commit(new HashMap<>(committed));
    return true;
  }

  /** Commits the last offsets again, so the group's offsets retention never expires an idle route's cursor. */
  synchronized void refresh() {
    commit(new HashMap<>(committed));
  }
}
