package io.brook.broker.storage.chronicle;

import io.brook.broker.storage.BatchHeader;

/**
 * Where the log starts and ends, and what its last batch said. One writer moves the end (the append
 * path, under the engine's append lock); retention moves the start. Readers read {@link #end} first:
 * it is the volatile the writer writes last, so the plain fields after it are current.
 */
final class LogBounds {
  private volatile long endOffset;
  private volatile long startOffset;
  private long runningMaxTimestamp;
  private long endLogPosition;
  private long lastAppendTimeMs;

  LogBounds(RecoveredLog recovered) {
    runningMaxTimestamp = recovered.runningMaxTimestamp();
    endLogPosition = recovered.endLogPosition();
    lastAppendTimeMs = recovered.lastAppendTimeMs();
    startOffset = recovered.startOffset();
    endOffset = recovered.endOffset();
  }

  /** The end offset: the offset the next appended record gets. Read it before the getters below. */
  long end() {
    return endOffset;
  }

  long start() {
    return startOffset;
  }

  long runningMaxTimestamp() {
    return runningMaxTimestamp;
  }

  long endLogPosition() {
    return endLogPosition;
  }

  long lastAppendTimeMs() {
    return lastAppendTimeMs;
  }

  /** Publishes an appended batch to readers: the volatile write of the end offset comes last. */
  void appended(BatchHeader h) {
    runningMaxTimestamp = h.runningMaxTimestamp();
    endLogPosition = h.endLogPosition();
    lastAppendTimeMs = h.appendTimeMs();
    endOffset = h.nextOffset();
  }

  /** Retention deleted the segments below {@code offset}. */
  void startAt(long offset) {
    startOffset = offset;
  }
}
