package io.brook.broker.storage.dump;

import io.brook.broker.records.LogRecord;

/** What {@link LogDump} finds, in log order: segments, the batches in them, and (if asked) their records. */
public interface DumpListener {
  /** A new segment starts: its file name and Chronicle cycle number. */
  default void segment(String fileName, int cycle) {}

  void batch(DumpedBatch batch);

  /** A record of the batch just reported (only when the dump was asked for records). */
  default void record(LogRecord record) {}
}
