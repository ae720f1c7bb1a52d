package io.brook.client.producer;

import io.brook.client.Header;
import io.brook.client.TopicPartition;
import io.brook.protocol.v1.Durability;
import java.util.List;

/**
 * Opens the Java client's package-private produce encoding to {@code io.brook.perf.CodecBenchmark}
 * (same package, perf module, one class path). It does what {@code send} and the sender do to the
 * bytes, nothing else: no futures, no buffer accounting, no locks. Not idempotent (no producer id).
 */
public final class ProduceEncodingAccess {
  private static final TopicPartition TP = new TopicPartition("bench", 0);
  private static final List<Header> NO_HEADERS = List.of();

  private ProduceEncodingAccess() {}

  /** Bytes the batch's records take: computed once in set-up, so {@link #encode} never grows a buffer. */
  public static int batchBytes(byte[][] values, long timestampMs) {
    int total = 0;
    for (byte[] v : values) {
      total += RecordEncoding.size(RecordEncoding.bodySize(null, v, NO_HEADERS, 0)); // one timestamp: deltas 0
    }
    return total;
  }

  /**
   * Encodes the values as one batch's records (RecordEncoding into the open batch, in the stored
   * records format, as {@code send} does), then frames one ProduceStreamRequest around that batch
   * (ProduceRequestEncoding, as the sender does). The batch buffer is allocated at its final size,
   * as a Kafka producer's batch takes a pooled batch.size buffer.
   */
  public static byte[] encode(byte[][] values, long timestampMs, int batchBytes, long correlationId) {
    ProducerBatch batch = new ProducerBatch(TP, 0L, batchBytes, values.length);
    for (byte[] v : values) {
      batch.records.append(null, v, NO_HEADERS, timestampMs);
    }
    return ProduceRequestEncoding.encode(correlationId, Durability.DURABILITY_WRITTEN, -1, -1, List.of(batch));
  }
}
