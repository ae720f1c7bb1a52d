package io.brook.broker.api;

import io.brook.broker.durability.Flusher;
import io.brook.broker.producers.ProducerIds;
import java.time.InstantSource;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

/**
 * What the gRPC services need besides the topics: limits from the config, the clock, and where
 * woken reads run.
 *
 * @param readExecutor bounded pool for long polls and tail streams woken by appends
 * @param timer fires long-poll timeouts
 * @param flusher forces partitions for SYNCED produces (group commit)
 * @param producerIds hands out idempotent producer ids and epochs
 * @param draining the streams and waiting fetches a shutdown ends
 * @param observer where refusals inside answers and produce latencies are reported (metrics)
 */
public record ApiSettings(int maxBatchRecords, int produceStreamMaxInflight, long fetchMaxWaitMs,
    InstantSource clock, Executor readExecutor, ScheduledExecutorService timer, Flusher flusher,
    ProducerIds producerIds, Draining draining, ApiObserver observer) {}
