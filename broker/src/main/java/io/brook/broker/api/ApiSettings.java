package io.brook.broker.api;

import io.brook.broker.metrics.ApiObserver;
import java.util.concurrent.Executor;

/**
 * What the gRPC services need besides the core's services: stream limits, where woken work runs, and
 * where they report.
 *
 * @param produceStreamMaxInflight requests a produce stream reads ahead of its answers
 * @param readExecutor bounded pool for long polls and tail streams woken by appends
 * @param draining the streams and waiting fetches a shutdown ends
 * @param observer where refusals inside answers and produce latencies are reported (metrics)
 */
public record ApiSettings(int produceStreamMaxInflight, Executor readExecutor, Draining draining,
    ApiObserver observer) {}
