package io.brook.broker.core;

import io.brook.broker.errors.BrokerError;

/**
 * The offset a position resolved to in one partition, with the partition's bounds; or why not.
 *
 * @param error null when resolved; then the other numbers are 0
 */
public record OffsetLookup(String topic, int partition, long offset, long logStartOffset, long endOffset,
    BrokerError error, String errorMessage) {}
