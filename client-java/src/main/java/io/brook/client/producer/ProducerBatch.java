package io.brook.client.producer;

import io.brook.client.Header;
import io.brook.client.TopicPartition;
import io.brook.client.errors.BrookException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Records for one partition that travel together, encoded for the wire, with a future per record.
 * Guarded by the accumulator's lock until it completes; completing runs outside that lock, because
 * it runs the application's callbacks.
 */
final class ProducerBatch {
  final TopicPartition tp;
  final long createdNanos;
  final EncodedRecords records;
  final List<CompletableFuture<RecordMetadata>> futures;
  /** Done when every record's future is: what flush and close wait for. */
  final CompletableFuture<Void> done = new CompletableFuture<>();
  /** No more records go in: it is full, or the sender took it. */
  boolean closed;
  /** Times it was sent; more than 0 means the broker may have written it. */
  int attempts;
  int baseSequence;

  /**
   * @param expectedRecords about how many records it will hold: its per-record lists start that
   *     large rather than growing a step at a time
   */
  ProducerBatch(TopicPartition tp, long createdNanos, int initialBytes, int expectedRecords) {
    this(tp, createdNanos, new EncodedRecords(initialBytes, expectedRecords), expectedRecords);
  }

  private ProducerBatch(TopicPartition tp, long createdNanos, EncodedRecords records, int expectedRecords) {
    this.tp = tp;
    this.createdNanos = createdNanos;
    this.records = records;
    this.futures = new ArrayList<>(expectedRecords);
  }

  /** Adds the record and returns the bytes it took. */
  int add(byte[] key, byte[] value, List<Header> headers, long timestampMs, CompletableFuture<RecordMetadata> future) {
    int size = records.append(key, value, headers, timestampMs);
    futures.add(future);
    return size;
  }

  /** Bytes of its records on the wire: what it holds of the producer's buffer memory. */
  int bytes() {
    return records.length();
  }

  int count() {
    return records.count();
  }

  /**
   * Two batches with the first and second half of the records, for a batch the broker refused as
   * too large: halving again and again leaves the record at fault alone, and the others go through.
   * This batch is done when both halves are.
   */
  List<ProducerBatch> split() {
    int half = count() / 2;
    ProducerBatch first = new ProducerBatch(tp, createdNanos, records.slice(0, half), half);
    ProducerBatch second = new ProducerBatch(tp, createdNanos, records.slice(half, count()), count() - half);
    first.futures.addAll(futures.subList(0, half));
    second.futures.addAll(futures.subList(half, count()));
    first.attempts = attempts;
    second.attempts = attempts;
    CompletableFuture.allOf(first.done, second.done).thenRun(() -> done.complete(null));
    return List.of(first, second);
  }

  /** @param logAppendTime the topic stamps every record with the append time (LogAppendTime) */
  void succeed(long baseOffset, long appendTimeMs, boolean logAppendTime) {
    for (int i = 0; i < futures.size(); i++) {
      long timestamp = logAppendTime ? appendTimeMs : records.timestamp(i);
      futures.get(i).complete(new RecordMetadata(tp.topic(), tp.partition(), baseOffset + i, timestamp, appendTimeMs));
    }
    done.complete(null);
  }

  void fail(BrookException e) {
    for (CompletableFuture<RecordMetadata> f : futures) {
      f.completeExceptionally(e);
    }
    done.complete(null);
  }
}
