package io.brook.broker.core;

/** Where in a partition to start: an offset, the first record at or after a time, or either end. */
public sealed interface Position {
  /** An offset in [log start, end]; any other is OFFSET_OUT_OF_RANGE. */
  record Offset(long offset) implements Position {}

  /** The first record whose timestamp is at least {@code timestampMs} (the end when there is none). */
  record Timestamp(long timestampMs) implements Position {}

  /** The log start: the oldest record still held. */
  record Earliest() implements Position {}

  /** The end: the offset the next record will get. */
  record Latest() implements Position {}
}
