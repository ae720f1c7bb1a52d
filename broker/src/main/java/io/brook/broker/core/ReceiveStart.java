package io.brook.broker.core;

import java.util.List;

/**
 * What a member names as it starts receiving from an ack-mode group.
 *
 * @param clientId empty for a member whose leases end with its stream; else the member's name, kept
 *     with its leases between streams
 * @param maxRecords flow control as asked (0: the default, see {@link FlowLimits})
 * @param address the client's address, for describe and logs
 * @param principal the caller's principal (null with auth off)
 */
public record ReceiveStart(String group, List<String> topics, String clientId, long maxRecords, long maxBytes,
    String address, String principal) {}
