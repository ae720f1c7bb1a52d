package io.brook.broker.core;

import io.brook.broker.records.LogRecord;

/**
 * How much room what a read returns takes in the door's answer, which must stay within the door's
 * cap (gRPC's: 3 MiB, under its clients' default 4 MiB limit). Each door encodes records its own way,
 * so it measures them; the core fills answers to fit.
 */
public interface AnswerSize {
  /** Bytes one answer may take; only a single record alone may go over. */
  int capBytes();

  /** Room kept for what wraps one partition's records in an answer (names, offsets, tags). */
  int partitionOverhead();

  /** The encoded size of {@code r} as one of a partition's records in the answer. */
  int recordSize(LogRecord r);

  /** The encoded size of a stored batch of {@code length} bytes passed through as it is. */
  int batchSize(int length);

  /**
   * For a door whose framing around records is small enough not to count: records by their payload,
   * batches as they are, within {@code capBytes}.
   */
  static AnswerSize unframed(int capBytes) {
    return new AnswerSize() {
      @Override
      public int capBytes() {
        return capBytes;
      }

      @Override
      public int partitionOverhead() {
        return 0;
      }

      @Override
      public int recordSize(LogRecord r) {
        return r.payloadSize();
      }

      @Override
      public int batchSize(int length) {
        return length;
      }
    };
  }
}
