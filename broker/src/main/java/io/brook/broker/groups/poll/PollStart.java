package io.brook.broker.groups.poll;

import io.brook.broker.delivery.Delivery;
import io.brook.broker.groups.share.ShareFetchSink;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A poll member's receive as it starts waiting, under its group's monitor.
 *
 * @param records completed under the group's monitor by the dispatch that hands the member records,
 *     or empty when the wait ends first: continue asynchronously
 * @param lockMs how long the records stay leased (the group's ack timeout)
 */
public record PollStart(String member, CompletableFuture<List<Delivery>> records, ShareFetchSink sink,
    long lockMs) {}
