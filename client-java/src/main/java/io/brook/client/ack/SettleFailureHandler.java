package io.brook.client.ack;

/**
 * Told about settles sent in the background (on the Receive stream) that the broker did not apply,
 * and, by {@link AckConsumer#close()}, about every settle queued before close that was not applied
 * or whose outcome is unknown ({@link SettleFailure#NOT_SENT}, {@link SettleFailure#OUTCOME_UNKNOWN}).
 * Called on a gRPC thread (or the thread closing the consumer): keep it short, do not block, and do
 * not close the consumer from it (close waits for the stream whose thread this is).
 * {@link AckConsumer#flush()} returns its failures instead of calling this.
 */
@FunctionalInterface
public interface SettleFailureHandler {
  void onFailure(SettleFailure failure);
}
