package io.brook.broker.groups;

import java.util.List;

/**
 * An offset-mode join, checked by the caller (the core's group service).
 *
 * @param memberId empty for a new member
 * @param owner the caller's principal (null with auth off)
 */
public record JoinRequest(String memberId, String clientId, String address, List<String> topics,
    long sessionTimeoutMs, long rebalanceTimeoutMs, String owner) {}
