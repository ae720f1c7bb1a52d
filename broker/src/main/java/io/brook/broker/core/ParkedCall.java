package io.brook.broker.core;

import java.util.concurrent.CompletableFuture;

/**
 * A call answered later without holding a thread (a join waits for its rebalance, a heartbeat for
 * a rebalance or its wait): the answer, and what the adapter runs when its caller goes away first.
 */
public record ParkedCall<T>(CompletableFuture<T> answer, Runnable cancel) {}
