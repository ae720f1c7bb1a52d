package io.brook.client.admin;

/**
 * One partition of a group. {@code committedOffset} and {@code lag} are null when nothing is
 * committed (ack mode: the committed offset is the lowest unsettled one). {@code owner} is the
 * offset-mode member that holds it (null when none). The counts are for ack mode; the last three
 * count since the broker started.
 */
public record GroupPartitionInfo(String topic, int partition, Long committedOffset, long logStartOffset,
    long endOffset, Long lag, String owner, long unsettledRecords, long deadLetteredRecords, long redeliveries,
    long retentionDeletedRecords) {}
