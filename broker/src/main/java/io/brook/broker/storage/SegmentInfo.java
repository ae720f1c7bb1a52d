package io.brook.broker.storage;

/**
 * One segment (Chronicle roll cycle) of a partition log, as retention sees it.
 *
 * @param firstOffset the offset of its first record
 * @param endOffset one past its last record (the next segment's first offset)
 * @param sizeBytes bytes of the batches it holds
 * @param lastAppendTimeMs when the broker appended its last batch: retention by time counts from here,
 *     so a producer's clock can neither keep data forever nor have it deleted early
 */
public record SegmentInfo(long firstOffset, long endOffset, long sizeBytes, long lastAppendTimeMs) {}
