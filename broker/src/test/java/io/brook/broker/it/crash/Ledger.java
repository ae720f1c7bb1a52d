package io.brook.broker.it.crash;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the producers were told: for every answered record (by its unique key) the partition and
 * offset it was answered with; and the keys of batches sent but not answered yet (the broker may or
 * may not hold them). A record found in the log must be one of the two, at its answered offset.
 */
final class Ledger {
  private final Violations violations;
  private final Map<String, Long> answered = new HashMap<>(); // key -> partition << 40 | offset
  private final Set<String> inFlight = new HashSet<>();
  private final long[] answeredEnd;
  private long answeredBatches;
  private long duplicateAnswers;

  Ledger(int partitions, Violations violations) {
    this.answeredEnd = new long[partitions];
    this.violations = violations;
  }

  static long location(int partition, long offset) {
    return ((long) partition << 40) | offset;
  }

  static String describe(long location) {
    return (location >>> 40) + "/" + (location & ((1L << 40) - 1));
  }

  synchronized void sending(List<String> keys) {
    inFlight.addAll(keys);
  }

  /** A batch was answered: its records are at base, base + 1, ... of the partition, for good. */
  synchronized void answered(int partition, long base, List<String> keys, boolean duplicate) {
    answeredBatches++;
    if (duplicate) {
      duplicateAnswers++;
    }
    for (int i = 0; i < keys.size(); i++) {
      long at = location(partition, base + i);
      Long before = answered.put(keys.get(i), at);
      if (before != null && before != at) {
        violations.add("record " + keys.get(i) + " answered at " + describe(at) + " after it was answered at "
            + describe(before));
      }
      inFlight.remove(keys.get(i));
    }
    answeredEnd[partition] = Math.max(answeredEnd[partition], base + keys.size());
  }

  /** Where the record was answered, or null. */
  synchronized Long answeredAt(String key) {
    return answered.get(key);
  }

  /** Answered or in flight, in one look (a batch can be answered between two separate calls). */
  synchronized boolean known(String key) {
    return answered.containsKey(key) || inFlight.contains(key);
  }

  synchronized boolean inFlight(String key) {
    return inFlight.contains(key);
  }

  /** One past the highest offset answered in the partition. */
  synchronized long answeredEnd(int partition) {
    return answeredEnd[partition];
  }

  synchronized Map<String, Long> answeredCopy() {
    return new HashMap<>(answered);
  }

  synchronized long answeredRecords() {
    return answered.size();
  }

  synchronized long answeredBatches() {
    return answeredBatches;
  }

  synchronized long duplicateAnswers() {
    return duplicateAnswers;
  }

  synchronized int inFlightCount() {
    return inFlight.size();
  }
}
