package io.brook.client.consumer;

import io.brook.client.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The polling thread's view of its partitions: which it owns, the next offset to read from each
 * (unknown until looked up), a pending seek to the beginning or end, the end offset the last
 * fetch saw, and which are paused.
 */
final class PartitionStates {
  private final Map<TopicPartition, Long> positions = new LinkedHashMap<>();
  private final Map<TopicPartition, OffsetResetStrategy> pendingResets = new HashMap<>();
  private final Map<TopicPartition, Long> endOffsets = new HashMap<>();
  private final Set<TopicPartition> paused = new HashSet<>();
  private int rotation;
  /** Counts assignments, seeks and resets: records fetched before one may no longer be next. */
  private long changes;

  /** Replaces the assignment; partitions kept keep their state, new ones start unknown. */
  void assign(Iterable<TopicPartition> partitions) {
    changes++;
    Map<TopicPartition, Long> next = new LinkedHashMap<>();
    for (TopicPartition tp : partitions) {
      next.put(tp, positions.get(tp));
    }
    positions.clear();
    positions.putAll(next);
    pendingResets.keySet().retainAll(next.keySet());
    endOffsets.keySet().retainAll(next.keySet());
    paused.retainAll(next.keySet());
  }

  /** Drops everything; answers what was owned. */
  List<TopicPartition> clear() {
    changes++;
    List<TopicPartition> previous = assigned();
    positions.clear();
    pendingResets.clear();
    endOffsets.clear();
    paused.clear();
    return previous;
  }

  List<TopicPartition> assigned() {
    return List.copyOf(positions.keySet());
  }

  boolean isAssigned(TopicPartition tp) {
    return positions.containsKey(tp);
  }

  Long position(TopicPartition tp) {
    return positions.get(tp);
  }

  void seek(TopicPartition tp, long offset) {
    changes++;
    positions.put(tp, offset);
    pendingResets.remove(tp);
  }

  void requestReset(TopicPartition tp, OffsetResetStrategy to) {
    changes++;
    positions.put(tp, null);
    pendingResets.put(tp, to);
  }

  OffsetResetStrategy pendingReset(TopicPartition tp) {
    return pendingResets.get(tp);
  }

  /** After a fetch: the next offset to read and the end the broker reported. */
  void fetched(TopicPartition tp, long next, long end) {
    if (positions.containsKey(tp)) {
      positions.put(tp, next);
      endOffsets.put(tp, end);
    }
  }

  /** Records up to {@code next} were handed out from what an earlier fetch read. */
  void advance(TopicPartition tp, long next) {
    if (positions.containsKey(tp)) {
      positions.put(tp, next);
    }
  }

  long changes() {
    return changes;
  }

  void endOffset(TopicPartition tp, long end) {
    endOffsets.put(tp, end);
  }

  Long endOffset(TopicPartition tp) {
    return endOffsets.get(tp);
  }

  /** Partitions whose start is not known yet (no committed offset read, or a pending seek to an end). */
  List<TopicPartition> withoutPosition() {
    List<TopicPartition> out = new ArrayList<>();
    positions.forEach((tp, p) -> {
      if (p == null) {
        out.add(tp);
      }
    });
    return out;
  }

  /** The positions known, for a commit: the next offset to read of each partition. */
  Map<TopicPartition, Long> knownPositions() {
    Map<TopicPartition, Long> out = new LinkedHashMap<>();
    positions.forEach((tp, p) -> {
      if (p != null) {
        out.put(tp, p);
      }
    });
    return out;
  }

  /** Assigned partitions only; a paused one is neither fetched nor handed out until resumed. */
  void pause(TopicPartition tp) {
    if (positions.containsKey(tp)) {
      paused.add(tp);
    }
  }

  void resume(TopicPartition tp) {
    paused.remove(tp);
  }

  boolean isPaused(TopicPartition tp) {
    return paused.contains(tp);
  }

  Set<TopicPartition> paused() {
    return new LinkedHashSet<>(paused);
  }

  /** Whether some partition could be fetched now: a known position and not paused. */
  boolean hasFetchable() {
    for (Map.Entry<TopicPartition, Long> e : positions.entrySet()) {
      if (e.getValue() != null && !paused.contains(e.getKey())) {
        return true;
      }
    }
    return false;
  }

  /**
   * The fetchable partitions (a known position, not paused), each going first in turn so that none
   * starves under max.poll.records.
   */
  List<TopicPartition> fetchOrder() {
    List<TopicPartition> ready = new ArrayList<>(knownPositions().keySet());
    ready.removeAll(paused);
    int n = ready.size();
    if (n == 0) {
      return ready;
    }
    List<TopicPartition> order = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      order.add(ready.get((rotation + i) % n));
    }
    rotation = (rotation + 1) % n;
    return order;
  }

  Set<TopicPartition> assignedSet() {
    return positions.keySet();
  }
}
