package io.brook.broker.groups;

import io.brook.broker.errors.BrokerException;

/** Per-partition outcome of a commit: {@code error} is null on success. */
public record CommitOutcome(TopicPartition tp, BrokerException error) {}
