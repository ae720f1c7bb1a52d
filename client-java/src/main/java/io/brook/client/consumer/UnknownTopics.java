package io.brook.client.consumer;

import io.brook.client.errors.BrookException;
import io.brook.client.errors.UnknownPartitionException;
import io.brook.client.errors.UnknownTopicException;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The subscribed topics the broker did not know at the member's last join ({@code
 * JoinGroupResponse.unknown_topics}). The member waits for them as Kafka's consumer does: once one
 * is created the group rebalances and the next join gets its partitions. Thread-safe.
 */
final class UnknownTopics {
  private static final System.Logger LOG = System.getLogger(BrookConsumer.class.getName());

  private Set<String> missing = Set.of();

  /**
   * Takes a join's answer. Logs one warning per topic that went missing (again when a topic that
   * existed is deleted), not one per join, and one info line when a missing topic appears.
   */
  void update(String group, List<String> unknown) {
    Set<String> now = Set.copyOf(new TreeSet<>(unknown));
    Set<String> before;
    synchronized (this) {
      before = missing;
      missing = now;
    }
    for (String t : new TreeSet<>(now)) {
      if (!before.contains(t)) {
        LOG.log(System.Logger.Level.WARNING, "subscribed topic {0} of group {1} does not exist; the consumer gets "
            + "its partitions once it is created", t, group);
      }
    }
    for (String t : new TreeSet<>(before)) {
      if (!now.contains(t)) {
        LOG.log(System.Logger.Level.INFO, "subscribed topic {0} of group {1} exists now", t, group);
      }
    }
  }

  /**
   * A fetch found an assigned topic or partition gone (it was deleted). For a group member that is
   * not the end: the group rebalances it away (the next join reports it unknown), so poll retries.
   */
  static boolean gone(BrookException e) {
    return e instanceof UnknownTopicException || e instanceof UnknownPartitionException;
  }

  synchronized Set<String> current() {
    return missing;
  }
}
