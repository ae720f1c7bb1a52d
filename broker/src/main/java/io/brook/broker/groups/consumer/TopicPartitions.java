package io.brook.broker.groups.consumer;

import java.util.List;
import java.util.UUID;

/** Partitions of one topic, named by its id as KIP-848 names them (Brook's topic id is Kafka's, D47). */
public record TopicPartitions(UUID topicId, List<Integer> partitions) {}
