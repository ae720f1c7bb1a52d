package io.brook.broker.storage.chronicle;

import io.brook.broker.storage.BatchCodec;
import io.brook.broker.storage.BatchHeader;
import io.brook.broker.storage.LogOptions;
import io.brook.broker.storage.StorageException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.RollCycle;

/**
 * Opens a partition's queue and recovers what it holds, as Kafka's LogLoader does: first it clears
 * what a crash can leave (unfinished files, stale Chronicle locks, renamed segments not yet unlinked),
 * then reads the first batch of every segment and the last batch of the queue, O(segments),
 * independent of the data size. The result is an immutable {@link RecoveredLog}.
 */
final class LogLoader {
  private final ChronicleInternals internals;
  private final ChronicleQueue queue;
  private final RollCycle rollCycle;

  private LogLoader(ChronicleInternals internals) {
    this.internals = internals;
    this.queue = internals.queue();
    this.rollCycle = queue.rollCycle();
  }

  /** The queue, opened, and what recovery found in it. */
  record Loaded(ChronicleQueue queue, RecoveredLog recovered) {}

  /** Opens (creating if needed) the queue in {@code dir} and recovers it; closes it again when that fails. */
  static Loaded load(Path dir, LogOptions options) {
    UnfinishedFiles.remove(dir); // a kill while Chronicle created a file: it would stall on it, then fail
    ChronicleInternals.clearStaleLocks(dir);
    SegmentDeletion.removeLeftovers(dir);
    ChronicleInternals internals = ChronicleInternals.open(dir, ChronicleRolls.of(options.roll()),
        options.clock()::millis);
    try {
      return new Loaded(internals.queue(), new LogLoader(internals).recover());
    } catch (RuntimeException e) {
      internals.queue().close();
      throw e;
    }
  }

  private RecoveredLog recover() {
    Reader r = new Reader(queue.createTailer());
    try {
      long lastIndex = queue.lastIndex(); // before the walk below moves the tailer
      List<Segment> segments = new ArrayList<>();
      int lastCycle = Integer.MIN_VALUE;
      for (int cycle = internals.firstCycle(); cycle >= 0 && cycle <= internals.lastCycle(); ) {
        BatchHeader first = r.headerAt(rollCycle.toIndex(cycle, 0));
        if (first != null) {
          segments.add(new Segment(cycle, first.baseOffset(), first.runningMaxTimestamp(), first.logPosition(),
              r.tailer.currentFile()));
          lastCycle = cycle;
        }
        int next = internals.nextCycle(cycle);
        if (next <= cycle) {
          break;
        }
        cycle = next;
      }
      return recoverEnd(r, lastIndex, segments, lastCycle);
    } finally {
      r.tailer.close();
    }
  }

  /**
   * Finds the last batch. Chronicle's lastIndex() can stop short of the last complete document, or
   * name it without having recorded it: a writer killed after Chronicle marked its document complete,
   * before it recorded the segment's write position and index, leaves a batch every reader sees.
   * Alone in its segment, lastIndex() does not count it (a later segment), or counts it while the
   * write position says the segment is empty (the queue's first). The log ends where readers see it
   * end, or the next append would reuse the batch's offsets; and the segment's write position is set
   * to it, or Chronicle's appender would write after it but number its documents from 0 again.
   */
  private RecoveredLog recoverEnd(Reader r, long lastIndex, List<Segment> segments, int lastCycle) {
    BatchHeader last = null;
    long lastPosition = -1;
    if (lastIndex >= 0) {
      if (!r.tailer.moveToIndex(lastIndex) || (lastPosition = r.readIntoAt()) < 0) {
        throw new StorageException("cannot read the last batch of " + queue.fileAbsolutePath());
      }
      last = BatchCodec.header(r.buf, 0, r.length);
    } else {
      r.tailer.toStart(); // Chronicle counts no document; one it did not count may be there
    }
    int lastDocumentCycle = last == null ? -1 : rollCycle.toCycle(r.tailer.lastReadIndex());
    for (long position; (position = r.readIntoAt()) >= 0; ) {
      BatchHeader next = BatchCodec.header(r.buf, 0, r.length);
      if (last != null && next.baseOffset() != last.nextOffset()) {
        throw new StorageException("the batch after index " + Long.toHexString(lastIndex) + " of "
            + queue.fileAbsolutePath() + " starts at offset " + next.baseOffset() + ", not " + last.nextOffset());
      }
      last = next;
      lastPosition = position;
      lastDocumentCycle = rollCycle.toCycle(r.tailer.lastReadIndex());
    }
    if (last == null) {
      return RecoveredLog.empty(segments, lastCycle);
    }
    if (!BatchCodec.checksumMatches(r.buf, 0, r.length, r.crc)) {
      throw new StorageException("the last batch of " + queue.fileAbsolutePath() + " fails its checksum");
    }
    internals.recordWritePosition(lastDocumentCycle, lastPosition);
    long start = segments.isEmpty() ? last.baseOffset() : segments.get(0).firstOffset();
    return new RecoveredLog(segments, start, last.nextOffset(), last.runningMaxTimestamp(), last.endLogPosition(),
        last.appendTimeMs(), lastCycle);
  }
}
