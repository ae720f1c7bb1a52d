package io.brook.broker.groups;

/** One offset to commit, with the committer's metadata (at most 4096 UTF-8 bytes, as in Kafka). */
public record CommitRequest(TopicPartition tp, long offset, String metadata) {}
