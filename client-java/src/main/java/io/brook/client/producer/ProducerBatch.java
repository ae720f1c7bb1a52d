package io.brook.client.producer;

import io.brook.client.Header;
import io.brook.client.TopicPartition;
import io.brook.client.errors.BrookException;
import io.brook.protocol.batch.BatchReader;
import io.brook.protocol.batch.Compression;
import io.brook.protocol.batch.CorruptBatchException;
import io.brook.protocol.batch.KafkaBatch;
import io.brook.protocol.batch.KafkaBatchWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32C;

/**
 * Records for one partition that travel together, written as they are sent into one Kafka record
 * batch v2 ({@code ProduceBatch.kafka_batch}, D49), with a future per record. {@code send} appends
 * each record to the batch's records; the first time the sender takes the batch it is finished
 * (compressed, if asked, once), and each send writes the producer id, epoch and base sequence of
 * that attempt into its header and computes its CRC again. Guarded by the accumulator's lock until
 * it completes; completing runs outside that lock, because it runs the application's callbacks.
 */
final class ProducerBatch {
  final TopicPartition tp;
  final long createdNanos;
  final List<CompletableFuture<RecordMetadata>> futures;
  /** Done when every record's future is: what flush and close wait for. */
  final CompletableFuture<Void> done = new CompletableFuture<>();
  /** No more records go in: it is full, or the sender took it. */
  boolean closed;
  /** Times it was sent; more than 0 means the broker may have written it. */
  int attempts;
  int baseSequence;
  /** Its last send carried the Kafka batch (not the encoded records an older broker reads). */
  boolean sentAsKafka;
  private final Compression compression;
  private final KafkaBatchWriter writer = new KafkaBatchWriter();
  private long[] timestamps;
  /** Bytes of its records before compression: what it holds of the producer's buffer memory. */
  private int recordBytes;
  /** The finished batch's size in {@code writer.array()}, or -1 while records still go in. */
  private int end = -1;
  /** The same records in the form a broker older than kafka_batch reads, made when one is met. */
  private EncodedRecords legacy;

  /**
   * @param expectedRecords about how many records it will hold: its per-record lists start that
   *     large rather than growing a step at a time
   */
  ProducerBatch(TopicPartition tp, long createdNanos, Compression compression, int expectedRecords) {
    this.tp = tp;
    this.createdNanos = createdNanos;
    this.compression = compression;
    this.futures = new ArrayList<>(expectedRecords);
    this.timestamps = new long[Math.max(16, expectedRecords)];
    writer.begin(0, 0, compression);
  }

  /** Adds the record and returns the bytes it took (before compression). A null value is stored empty. */
  int add(byte[] key, byte[] value, List<Header> headers, long timestampMs, CompletableFuture<RecordMetadata> future) {
    int before = writer.uncompressedSize();
    int keyLength = key == null ? -1 : key.length;
    byte[] v = value == null ? EMPTY : value;
    writer.record(timestampMs, key, 0, keyLength, v, 0, v.length, headers.size());
    for (Header h : headers) {
      byte[] name = h.key().getBytes(StandardCharsets.UTF_8);
      writer.header(name, 0, name.length, h.value(), 0, h.value().length);
    }
    addTimestamp(timestampMs);
    futures.add(future);
    int taken = writer.uncompressedSize() - before;
    recordBytes += taken;
    return taken;
  }

  private void addTimestamp(long timestampMs) {
    int i = futures.size();
    if (i == timestamps.length) {
      timestamps = Arrays.copyOf(timestamps, i * 2);
    }
    timestamps[i] = timestampMs;
  }

  /** Bytes of its records before compression: what it holds of the producer's buffer memory. */
  int bytes() {
    return recordBytes;
  }

  int count() {
    return futures.size();
  }

  /**
   * The batch as this attempt sends it, in {@code array()[0, wireBytes())}: finished on the first
   * call, then stamped with this attempt's producer fields (-1 for a producer that is not idempotent).
   * Called by the sender only, after the batch closed.
   */
  byte[] kafkaBatch(long producerId, short producerEpoch, int sequence, CRC32C crc) {
    if (end < 0) {
      end = writer.finish();
    }
    byte[] b = writer.array();
    KafkaBatch.putLong(b, KafkaBatch.PRODUCER_ID, producerId);
    KafkaBatch.putShort(b, KafkaBatch.PRODUCER_EPOCH, producerEpoch);
    KafkaBatch.putInt(b, KafkaBatch.BASE_SEQUENCE, sequence);
    KafkaBatch.recomputeCrc(b, 0, end, crc);
    return b;
  }

  /** Bytes of the batch as sent: the Kafka batch after compression (known once sent). */
  int wireBytes() {
    if (legacy != null && !sentAsKafka) {
      return legacy.length();
    }
    return end < 0 ? writer.uncompressedSize() : end;
  }

  /**
   * The records in the encoded records form (D31) for a broker that predates kafka_batch: read back
   * out of the Kafka batch once. Only the sender calls it.
   */
  EncodedRecords legacyRecords() {
    if (legacy == null) {
      EncodedRecords out = new EncodedRecords(recordBytes, count());
      forEachRecord((r, i) -> out.append(r.hasKey() ? r.copyKey() : null, r.copyValue(), headers(r), timestamps[i]));
      legacy = out;
    }
    return legacy;
  }

  /**
   * Two batches with the first and second half of the records, for a batch the broker refused as
   * too large: halving again and again leaves the record at fault alone, and the others go through.
   * This batch is done when both halves are.
   */
  List<ProducerBatch> split() {
    int half = count() / 2;
    ProducerBatch first = new ProducerBatch(tp, createdNanos, compression, half);
    ProducerBatch second = new ProducerBatch(tp, createdNanos, compression, count() - half);
    forEachRecord((r, i) -> {
      ProducerBatch to = i < half ? first : second;
      to.addFrom(r, timestamps[i], futures.get(i));
    });
    // Its halves hold what it held of the buffer memory, no more, no less (each half's own timestamp
    // and offset deltas can take a byte more or less than they did here).
    second.recordBytes = recordBytes - first.recordBytes;
    first.attempts = attempts;
    second.attempts = attempts;
    CompletableFuture.allOf(first.done, second.done).thenRun(() -> done.complete(null));
    return List.of(first, second);
  }

  /** Copies one record the reader is on (of a batch being split), headers and all. */
  private void addFrom(BatchReader r, long timestampMs, CompletableFuture<RecordMetadata> future) {
    int before = writer.uncompressedSize();
    byte[] b = r.array();
    writer.record(timestampMs, b, r.keyOffset(), r.hasKey() ? r.keyLength() : -1, b, r.valueOffset(),
        r.hasValue() ? r.valueLength() : -1, r.headerCount());
    for (int h = 0; h < r.headerCount(); h++) {
      writer.header(b, r.headerNameOffset(h), r.headerNameLength(h), b, r.headerValueOffset(h),
          r.hasHeaderValue(h) ? r.headerValueLength(h) : -1);
    }
    addTimestamp(timestampMs);
    futures.add(future);
    recordBytes += writer.uncompressedSize() - before;
  }

  private interface RecordVisitor {
    void visit(BatchReader reader, int index);
  }

  /** Reads its own records back, in order: only for a split or an older broker, never on the way out. */
  private void forEachRecord(RecordVisitor visitor) {
    byte[] b = writer.array();
    int length = end < 0 ? writer.finish() : end;
    end = length;
    // Its own records, about recordBytes before compression: the bound only has to let them through.
    int bound = (int) Math.min(Integer.MAX_VALUE - 8, 2L * recordBytes + (1 << 20));
    BatchReader r = new BatchReader().maxDecompressedBytes(bound);
    try {
      r.wrapKafka(b, 0, length);
      for (int i = 0; r.next(); i++) {
        visitor.visit(r, i);
      }
    } catch (CorruptBatchException e) {
      throw new IllegalStateException("the producer could not read back a batch it wrote", e);
    }
  }

  private static List<Header> headers(BatchReader r) {
    List<Header> out = new ArrayList<>(r.headerCount());
    for (int h = 0; h < r.headerCount(); h++) {
      out.add(new Header(new String(r.copyHeaderName(h), StandardCharsets.UTF_8),
          r.hasHeaderValue(h) ? r.copyHeaderValue(h) : EMPTY));
    }
    return out;
  }

  /** @param logAppendTime the topic stamps every record with the append time (LogAppendTime) */
  void succeed(long baseOffset, long appendTimeMs, boolean logAppendTime) {
    for (int i = 0; i < futures.size(); i++) {
      long timestamp = logAppendTime ? appendTimeMs : timestamps[i];
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

  private static final byte[] EMPTY = new byte[0];
}
