package io.brook.broker.groups.assign;

import io.brook.broker.groups.TopicPartition;
import java.util.Set;

/**
 * One member as an assignor sees it.
 *
 * @param topics the topics it subscribes to (names, regex already resolved)
 * @param instanceId its group.instance.id, or null: range orders static members by it, so that a
 *     restarted static member gets the same ranges
 * @param current its partitions in the previous target assignment (stickiness)
 */
public record MemberSpec(Set<String> topics, String instanceId, Set<TopicPartition> current) {}
