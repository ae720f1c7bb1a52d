package io.brook.broker.groups;

/**
 * Per-partition outcome of deleting a committed offset.
 *
 * @param error null when done; else a BrokerException (an unknown topic or partition) or a
 *     MemberFaultException (GROUP_SUBSCRIBED_TO_TOPIC)
 */
public record OffsetDeletion(TopicPartition tp, RuntimeException error) {}
