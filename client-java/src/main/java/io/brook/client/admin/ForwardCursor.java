package io.brook.client.admin;

/**
 * Where a forward route stands on one source partition.
 *
 * @param position the next offset to forward (the committed offset of the group {@code __forward.<route>})
 * @param endOffset the partition's end offset
 */
public record ForwardCursor(String topic, int partition, long position, long endOffset) {}
