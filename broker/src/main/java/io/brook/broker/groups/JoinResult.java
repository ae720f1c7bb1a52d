package io.brook.broker.groups;

import java.util.List;

/**
 * What a member gets when a rebalance completes.
 *
 * @param unknownTopics the member's topics that did not exist when the generation was made
 * @param topics the topics the member's subscription resolved to in this generation
 */
public record JoinResult(String memberId, int generation, List<TopicPartition> assignment, int heartbeatIntervalMs,
    List<String> unknownTopics, List<String> topics) {}
