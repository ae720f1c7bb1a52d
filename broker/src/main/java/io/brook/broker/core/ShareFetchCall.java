package io.brook.broker.core;

import io.brook.broker.groups.Settlement;
import io.brook.broker.groups.TopicPartition;
import java.util.List;

/**
 * A Kafka share member's ShareFetch (or, with {@code fetch} false, ShareAcknowledge) in Brook's types.
 *
 * @param epoch the share session epoch: 0 opens, -1 closes, else the next one
 * @param added partitions the request adds to its session
 * @param forgotten partitions it removes
 * @param principal the caller's principal (null with auth off)
 */
public record ShareFetchCall(String group, String memberId, String principal, int epoch, List<TopicPartition> added,
    List<TopicPartition> forgotten, Settlement acks, boolean fetch, int maxRecords, int maxBytes, long maxWaitMs) {}
