package io.brook.broker.http.relay;

import java.util.concurrent.CompletionStage;

/**
 * Serves one route. Called on the relay's executor (never the event loop), with the caller already
 * authenticated; it checks permissions itself ({@link RelayCaller#requireProduce} ...). It may answer
 * at once ({@code CompletableFuture.completedFuture(RelayReply.ok(json))}) or later (a long poll
 * completes the stage from another thread). Refusals: throw, or complete exceptionally with, a
 * BrokerException (code and status as gRPC's) or a {@link RelayException}.
 */
@FunctionalInterface
public interface RelayHandler {
  CompletionStage<RelayReply> handle(RelayRequest request);
}
