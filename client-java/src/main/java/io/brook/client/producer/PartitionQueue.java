package io.brook.client.producer;

import io.brook.client.TopicPartition;
import io.brook.client.internal.Backoff;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * One partition's batches: waiting (the last may still be open), in flight (sent, unanswered, in
 * send order), and those that came back failed while the partition recovers. Guarded by the
 * accumulator's lock.
 *
 * <p>Sequence numbers (idempotence): a batch gets {@code nextSendSeq} when sent. When a batch
 * fails, the partition stops sending until every batch in flight is back; the failed ones then
 * go first again, numbered afresh from the last sequence the broker acknowledged. Unless a batch
 * failed for good, that gives each batch the number it had, so a batch the broker wrote but whose
 * answer was lost is recognised as a duplicate. A batch that failed for good was not written, so
 * nothing after it was either, and numbering them afresh leaves no gap.
 */
final class PartitionQueue {
  final TopicPartition tp;
  final ArrayDeque<ProducerBatch> waiting = new ArrayDeque<>();
  final ArrayDeque<ProducerBatch> inFlight = new ArrayDeque<>();
  final List<ProducerBatch> returned = new ArrayList<>();
  final Backoff retryBackoff;
  int ackedNextSeq;
  int nextSendSeq;
  boolean recovering;
  long retryAtNanos;

  PartitionQueue(TopicPartition tp, Backoff retryBackoff) {
    this.tp = tp;
    this.retryBackoff = retryBackoff;
  }

  ProducerBatch openBatch() {
    ProducerBatch last = waiting.peekLast();
    return last != null && !last.closed ? last : null;
  }

  /** The in-flight batches are all back: the returned ones go first, numbered from the acknowledged sequence. */
  void finishRecovery(long nowNanos) {
    if (!recovering || !inFlight.isEmpty()) {
      return;
    }
    for (int i = returned.size() - 1; i >= 0; i--) {
      ProducerBatch b = returned.get(i);
      b.closed = true;
      waiting.addFirst(b);
    }
    if (!returned.isEmpty()) {
      retryAtNanos = nowNanos + retryBackoff.nextDelayMs() * 1_000_000L;
    }
    returned.clear();
    nextSendSeq = ackedNextSeq;
    recovering = false;
  }

  static int addSequence(int seq, int count) {
    return (int) (((long) seq + count) % (1L << 31)); // the broker's sequences wrap at 2^31
  }
}
