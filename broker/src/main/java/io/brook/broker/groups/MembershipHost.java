package io.brook.broker.groups;

import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * What a {@link Membership} engine may use of its group and the broker. Implemented by
 * {@link OffsetGroup}; called under the group's monitor.
 */
public interface MembershipHost {
  String groupName();

  long nowMs();

  /** group.min.session.timeout.ms and group.max.session.timeout.ms. */
  long minSessionTimeoutMs();

  long maxSessionTimeoutMs();

  /**
   * The group's last journaled generation (classic) or group epoch (KIP-848): one number per group,
   * shared by every engine it ever had, so it never goes back, across restarts and protocol changes.
   */
  int generation();

  /**
   * Journals a new generation (or group epoch) before the engine answers with it. False when the
   * disk's headroom for metadata is used up: the engine must not hand the generation out, and tries
   * again at a later tick.
   */
  boolean journalGeneration(int generation);

  /** The partition count of each of these topics that exists now. */
  Map<String, Integer> partitionCounts(java.util.Collection<String> topics);

  /** The id of a topic that exists now. */
  Optional<UUID> topicId(String topic);

  /** The name of the topic with this id, if it exists now. */
  Optional<String> topicName(UUID id);

  /**
   * Every existing topic's name, and Kafka's internal topics ({@link InternalTopic}): regex subscriptions
   * match against them. The other topic lookups here know the internal topics too.
   */
  java.util.List<String> topicNames();

  /** The last member left (the group may now expire, or go at once when it never had offsets). */
  void membershipEmptied();

  /**
   * The engine gives its members to an engine of another protocol, which serves the group from now on
   * (Kafka's online downgrade of a KIP-848 group); the group's protocol is journaled.
   */
  void replaceMembership(java.util.function.Function<MembershipHost, Membership> next);
}
