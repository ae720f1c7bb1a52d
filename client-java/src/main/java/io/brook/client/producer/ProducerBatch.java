package io.brook.client.producer;

import io.brook.client.TopicPartition;
import io.brook.client.errors.BrookException;
import io.brook.protocol.v1.Record;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Records for one partition that travel together, with a future per record. Guarded by the
 * accumulator's lock until it completes; completing runs outside that lock, because it runs the
 * application's callbacks.
 */
final class ProducerBatch {
  final TopicPartition tp;
  final long createdNanos;
  final List<Record> records = new ArrayList<>();
  final List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
  /** Done when every record's future is: what flush and close wait for. */
  final CompletableFuture<Void> done = new CompletableFuture<>();
  /** Bytes held in the producer's buffer memory for this batch. */
  int bytes;
  /** No more records go in: it is full, or the sender took it. */
  boolean closed;
  /** Times it was sent; more than 0 means the broker may have written it. */
  int attempts;
  int baseSequence;

  ProducerBatch(TopicPartition tp, long createdNanos) {
    this.tp = tp;
    this.createdNanos = createdNanos;
  }

  void add(Record record, int size, CompletableFuture<RecordMetadata> future) {
    records.add(record);
    futures.add(future);
    bytes += size;
  }

  int count() {
    return records.size();
  }

  /**
   * Two batches with the first and second half of the records, for a batch the broker refused as
   * too large: halving again and again leaves the record at fault alone, and the others go through.
   * This batch is done when both halves are.
   */
  List<ProducerBatch> split() {
    int half = records.size() / 2;
    ProducerBatch first = new ProducerBatch(tp, createdNanos);
    ProducerBatch second = new ProducerBatch(tp, createdNanos);
    for (int i = 0; i < records.size(); i++) {
      Record r = records.get(i);
      (i < half ? first : second).add(r, sizeOf(r), futures.get(i));
    }
    int moved = first.bytes + second.bytes;
    second.bytes += bytes - moved; // the buffer accounting stays exact whatever sizeOf says
    first.attempts = attempts;
    second.attempts = attempts;
    CompletableFuture.allOf(first.done, second.done).thenRun(() -> done.complete(null));
    return List.of(first, second);
  }

  /** A record's bytes in the buffer and in a request: the record and its field tag and length. */
  static int sizeOf(Record r) {
    return r.getSerializedSize() + 8;
  }

  void succeed(long baseOffset, long appendTimeMs) {
    for (int i = 0; i < records.size(); i++) {
      Record r = records.get(i);
      long timestamp = r.hasTimestampMs() ? r.getTimestampMs() : appendTimeMs;
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
