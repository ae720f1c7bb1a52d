package io.brook.broker.groups.share;

import io.brook.broker.delivery.Delivery;
import io.brook.broker.groups.Settlement;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What a ShareFetch (or ShareAcknowledge) did under its group's monitor: the acknowledgements that did
 * not apply, and the records it waits for (completed under the monitor: continue asynchronously).
 *
 * @param records null when the request fetches nothing (it closed its session, or only acknowledged)
 * @param lockMs how long the records stay acquired (the group's ack timeout)
 */
public record ShareFetchStart(List<Settlement.Failure> ackFailures, CompletableFuture<List<Delivery>> records,
    ShareFetchSink sink, long lockMs) {}
