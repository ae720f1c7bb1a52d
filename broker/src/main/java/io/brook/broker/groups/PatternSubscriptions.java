package io.brook.broker.groups;

import java.util.Collection;
import java.util.function.Supplier;

/**
 * An offset-mode group's regex subscriptions (JoinGroupRequest.topic_pattern): a pattern member's
 * topics are what its pattern matches among the existing topics its principal may consume, resolved
 * anew at every rebalance; between rebalances the group's tick re-matches the patterns (once a second,
 * as the KIP-848 engine does: a pattern is matched against every topic name), so that a matching topic
 * created or deleted rebalances the group. Guarded by the group's monitor.
 */
final class PatternSubscriptions {
  /** How often the patterns are re-matched while the group is stable. */
  static final long CHECK_INTERVAL_MS = 1000;

  private long nextCheckMs;

  /**
   * Sets each pattern member's topics to what its pattern matches now, for the rebalance being
   * completed; the topic names are listed only when some member has a pattern.
   */
  static void resolve(Collection<OffsetMember> members, Supplier<Collection<String>> topicNames) {
    Collection<String> names = null;
    for (OffsetMember m : members) {
      if (m.topicPattern != null) {
        names = names == null ? topicNames.get() : names;
        m.topics = TopicPatterns.matching(m.topicPattern, names, m.consumable);
      }
    }
  }

  /**
   * Whether some pattern member's pattern now matches other topics than those it was given at the
   * last rebalance; answers false until a second passed since the last look.
   */
  boolean matchesChanged(Collection<OffsetMember> members, Supplier<Collection<String>> topicNames, long now) {
    if (now < nextCheckMs || members.stream().allMatch(m -> m.topicPattern == null)) {
      return false;
    }
    nextCheckMs = now + CHECK_INTERVAL_MS;
    Collection<String> names = topicNames.get();
    return members.stream().anyMatch(m -> m.topicPattern != null
        && !TopicPatterns.matching(m.topicPattern, names, m.consumable).equals(m.topics));
  }
}
