package io.brook.broker.kafka.wire;

import org.apache.kafka.common.protocol.ApiMessage;

/** One request of a connection waiting its turn to be answered, in request order. */
final class PendingAnswer {
  final InboundRequest request;
  final long startNanos;
  boolean done;
  /** The answer; null with {@link #done} for no answer at all (Produce with acks=0). */
  ApiMessage response;
  Throwable failure;

  PendingAnswer(InboundRequest request, long startNanos) {
    this.request = request;
    this.startNanos = startNanos;
  }
}
