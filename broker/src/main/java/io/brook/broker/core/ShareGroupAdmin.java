package io.brook.broker.core;

import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.AckGroup;
import io.brook.broker.groups.GroupManager;
import io.brook.broker.groups.GroupView;
import io.brook.broker.groups.ShareOffsets;
import io.brook.broker.groups.ShareOffsets.Refusal;
import io.brook.broker.groups.TopicPartition;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Kafka's share-group admin calls on ack groups (D67): a share group is an ack group, its
 * share-partition start offsets are the windows' starts. Each call names an ack group; an absent
 * one is UNKNOWN_GROUP (alter creates it, as Kafka does), an offset-mode one INCONSISTENT_GROUP_MODE.
 */
public final class ShareGroupAdmin {
  private final GroupManager groups;

  public ShareGroupAdmin(GroupManager groups) {
    this.groups = groups;
  }

  /** The group as the caller may see it. */
  public GroupView describe(String group, Predicate<String> visibleTopics) {
    return groups.ackGroup(group, false).describe().only(visibleTopics);
  }

  /** Start offset and lag of every partition the group has a window on. */
  public List<ShareOffsets.Offset> offsets(String group) {
    return ShareOffsets.of(groups.ackGroup(group, false));
  }

  /**
   * Moves start offsets while no member is connected, creating the group when absent; answers the
   * partitions refused and why.
   */
  public Map<TopicPartition, BrokerException> alter(String group, Map<TopicPartition, Long> starts) {
    return ShareOffsets.alter(groups.ackGroup(group, true), starts);
  }

  /** Forgets the group's offsets on topics while no member is connected; per topic null or why not. */
  public Map<String, Refusal> deleteOffsets(String group, List<String> topics) {
    return ShareOffsets.delete(groups.ackGroup(group, false), topics);
  }
}
