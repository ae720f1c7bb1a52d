package io.brook.client.admin;

import io.brook.client.errors.BrookException;

/**
 * A group's committed offset for one partition. {@code offset} is null when nothing is committed.
 * {@code error} is non-null when this partition failed (for example {@code
 * OffsetOutOfRangeException} in a reset, {@code UnknownTopicException}); the other partitions are
 * unaffected.
 */
public record GroupOffset(String topic, int partition, Long offset, String metadata, long commitTimeMs,
    BrookException error) {}
