package io.brook.broker.groups.consumer;

import java.util.List;
import java.util.UUID;

/**
 * A KIP-848 group as ConsumerGroupDescribe shows it.
 *
 * @param state Kafka's name: "Empty", "Assigning", "Reconciling", "Stable"
 * @param groupEpoch the group's epoch (its journaled generation)
 * @param assignmentEpoch the epoch of the target assignment
 */
public record ConsumerGroupDescription(String group, String state, int groupEpoch, int assignmentEpoch,
    String assignor, List<Member> members) {

  /**
   * A member: what it has now and what it is going to.
   *
   * @param classic it joined with the classic protocol (JoinGroup), not ConsumerGroupHeartbeat
   */
  public record Member(String memberId, String instanceId, String rackId, int memberEpoch, String clientId,
      String clientHost, List<String> subscribedTopicNames, String subscribedTopicRegex, List<Topic> assignment,
      List<Topic> target, boolean classic) {}

  /** Partitions of one topic, by id and name. */
  public record Topic(UUID topicId, String name, List<Integer> partitions) {}
}
