package io.brook.broker.storage;

/**
 * One partition's log: an append-only sequence of records with contiguous offsets from 0 that
 * survive restarts and never renumber. The only way the layers above touch storage.
 *
 * <p>Appends are serialized by the log (one writer at a time). Reads and the offset queries may run
 * from any thread, concurrently with appends; they see every batch whose append has returned.
 */
public interface PartitionLog extends AutoCloseable {

  /** Appends a batch atomically; its records get contiguous offsets starting at the end offset. */
  AppendResult append(AppendBatch batch);

  /**
   * Reads from {@code offset} at most {@code maxRecords} records and about {@code maxBytes} bytes of
   * payload, but at least one record when there is one.
   *
   * @throws OffsetOutOfRangeException when offset is below the start or above the end offset
   */
  ReadResult read(long offset, int maxRecords, int maxBytes);

  /**
   * Reads whole stored batches, undecoded, from the one holding {@code offset}: another batch is
   * added while fewer than {@code maxRecords} records from {@code offset} on were read and the batch
   * fits in {@code maxBytes}; with {@code atLeastOne} the first batch is taken whatever its size.
   *
   * @throws OffsetOutOfRangeException when offset is below the start or above the end offset
   */
  BatchReadResult readBatches(long offset, int maxRecords, int maxBytes, boolean atLeastOne);

  /** The log-start offset: the oldest offset still held. */
  long startOffset();

  /** The end offset: the offset the next appended record will get. */
  long endOffset();

  /**
   * The offset of the first record whose timestamp is at or after {@code timestampMs}, or the end
   * offset when there is none. Producer timestamps need not be monotonic.
   */
  long offsetForTimestamp(long timestampMs);

  /** Bytes of batches written and still held (not the sparse file lengths). */
  long sizeBytes();

  /** Number of segments (roll cycles) held. */
  int segmentCount();

  /**
   * Visits the headers of the batches from the one holding {@code fromOffset} (or the log start, if
   * that is later) to the end, in order. Reads no records: cheap enough for recovery.
   */
  void forEachBatch(long fromOffset, java.util.function.Consumer<BatchInfo> visitor);

  /** The segments held, oldest first; the last one is the segment being written. */
  java.util.List<SegmentInfo> segments();

  /**
   * Deletes the {@code count} oldest segments, but never the last one (the one being written), and
   * advances the log-start offset past them; their files are unlinked and unmapped, so their space
   * is freed at once. Reads below the new start fail with {@link OffsetOutOfRangeException}.
   *
   * @return the new log-start offset
   */
  long deleteOldestSegments(int count);

  /** Forces everything appended so far to the device. */
  void flush();

  @Override
  void close();
}
