package io.brook.broker.core;

import java.util.List;

/**
 * One receive of a poll-style ack-mode consumer (HTTP, D70).
 *
 * @param consumer the member's name: its leases are held under it between receives
 * @param maxRecords records at most in the answer (0: {@link AckPollService#DEFAULT_MAX_RECORDS})
 * @param maxBytes payload bytes at most in the answer, but at least one record (0: the default)
 * @param waitMs how long to wait for a first record (capped by the broker's fetch.max.wait.ms)
 * @param address the client's address, for describe and logs
 * @param principal the caller's principal (null with auth off)
 */
public record PollReceive(String group, String consumer, List<String> topics, int maxRecords, int maxBytes,
    long waitMs, String address, String principal) {}
