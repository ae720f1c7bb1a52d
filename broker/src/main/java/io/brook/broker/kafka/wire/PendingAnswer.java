package io.brook.broker.kafka.wire;

import io.brook.broker.kafka.AnswerMemory;
import org.apache.kafka.common.protocol.ApiMessage;

/** One request of a connection waiting its turn to be answered, in request order. */
final class PendingAnswer {
  final InboundRequest request;
  final long startNanos;
  /** What the answer holds of the connection's outbound memory until it is written. */
  final AnswerMemory memory;
  boolean done;
  /** The answer; null with {@link #done} for no answer at all (Produce with acks=0). */
  ApiMessage response;
  Throwable failure;

  PendingAnswer(InboundRequest request, long startNanos, AnswerMemory memory) {
    this.request = request;
    this.startNanos = startNanos;
    this.memory = memory;
  }
}
