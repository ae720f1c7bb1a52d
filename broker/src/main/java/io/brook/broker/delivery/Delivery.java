package io.brook.broker.delivery;

import io.brook.broker.records.LogRecord;

/** One record leased to a member: which delivery of it this is, and until when the lease holds. */
public record Delivery(String topic, int partition, LogRecord record, int attempt, long leaseDeadlineMs) {}
