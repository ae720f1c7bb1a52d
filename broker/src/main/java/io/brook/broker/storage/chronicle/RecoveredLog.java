package io.brook.broker.storage.chronicle;

import java.util.List;

/**
 * What recovery found in a partition's files, immutable: the engine is built from it, so every field
 * the engine holds is final.
 *
 * @param segments every segment with a readable first batch, oldest first
 * @param startOffset the first offset held (0 when the log is empty)
 * @param endOffset the offset the next record gets (0 when the log is empty)
 * @param runningMaxTimestamp the last batch's running max timestamp ({@code Long.MIN_VALUE} when empty)
 * @param endLogPosition the log position after the last batch
 * @param lastAppendTimeMs the last batch's append time
 * @param lastCycle the cycle of the newest segment ({@code Integer.MIN_VALUE} when there is none)
 */
record RecoveredLog(List<Segment> segments, long startOffset, long endOffset, long runningMaxTimestamp,
    long endLogPosition, long lastAppendTimeMs, int lastCycle) {
  RecoveredLog {
    segments = List.copyOf(segments);
  }

  /** A log without a batch: offsets start at 0. */
  static RecoveredLog empty(List<Segment> segments, int lastCycle) {
    return new RecoveredLog(segments, 0, 0, Long.MIN_VALUE, 0, 0, lastCycle);
  }
}
