package io.brook.broker.storage.chronicle;

import io.brook.broker.records.LogRecord;
import io.brook.broker.storage.BatchCodec;
import io.brook.broker.storage.BatchHeader;
import io.brook.broker.storage.BatchInfo;
import io.brook.broker.storage.BatchReadResult;
import io.brook.broker.storage.OffsetOutOfRangeException;
import io.brook.broker.storage.ReadResult;
import io.brook.broker.storage.SegmentInfo;
import io.brook.broker.storage.StorageException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.wire.DocumentContext;

/**
 * The fetch path's work on one borrowed {@link Reader}: records, whole batches, the time lookup, the
 * header scan and the segment listing. Takes no lock: {@link ChronicleLog} calls it under its close
 * gate, so no segment is deleted and the queue is not closed meanwhile.
 */
final class LogReads {
  private final Path dir;
  private final RollCycle rollCycle;
  private final SegmentIndex index;
  private final ReaderPool pool;
  private final LogBounds bounds;
  private final boolean verifyChecksums;

  LogReads(Path dir, RollCycle rollCycle, SegmentIndex index, ReaderPool pool, LogBounds bounds,
      boolean verifyChecksums) {
    this.dir = dir;
    this.rollCycle = rollCycle;
    this.index = index;
    this.pool = pool;
    this.bounds = bounds;
    this.verifyChecksums = verifyChecksums;
  }

  ReadResult records(Reader r, long offset, long end, int maxRecords, int maxBytes) {
    List<LogRecord> out = new ArrayList<>(Math.min(maxRecords, 1024));
    int bytes = 0;
    long next = offset;
    boolean atBatchBoundary = false;
    if (r.holds(offset)) {
      // A consumer whose last fetch stopped inside a batch (its record or byte limit) asks for the
      // rest of it: decode the copy this reader still holds, and read on from where the tailer
      // stands. Positioning the tailer again cost a binary search of moveToIndex calls, each
      // rescanning up to 64 document headers (13 % of the broker's samples in a consume profile).
      bytes += BatchCodec.decode(r.buf, 0, r.length, next, maxRecords, maxBytes, out, r.in);
      if (!out.isEmpty()) {
        next = out.get(out.size() - 1).offset() + 1;
      }
      if (next < r.heldNext) {
        return new ReadResult(out, next); // stopped inside the held batch again
      }
      atBatchBoundary = true;
    } else {
      moveTo(r, offset, end);
    }
    while (out.size() < maxRecords && next < end && r.readInto()) {
      atBatchBoundary = false;
      BatchHeader h = r.hold(next, verifyChecksums);
      int before = out.size();
      bytes += BatchCodec.decode(r.buf, 0, r.length, next, maxRecords - out.size(),
          out.isEmpty() ? maxBytes : maxBytes - bytes, out, r.in);
      if (out.size() == before) {
        break; // the byte limit stopped us
      }
      next = out.get(out.size() - 1).offset() + 1;
      if (next < h.nextOffset()) {
        break; // stopped inside this batch
      }
      atBatchBoundary = true;
    }
    if (atBatchBoundary) {
      pool.remember(next, r); // the tailer now stands on the batch that starts at next
    }
    return new ReadResult(out, next);
  }

  BatchReadResult batches(Reader r, long offset, long end, int maxRecords, int maxBytes, boolean atLeastOne) {
    List<byte[]> out = new ArrayList<>();
    int bytes = 0;
    long next = offset;
    if (r.holds(offset)) {
      // The batch a previous read stopped before (or inside) is still in the buffer.
      if (!atLeastOne && r.length > maxBytes) {
        return BatchReadResult.empty(offset);
      }
      out.add(Arrays.copyOf(r.buf, r.length));
      bytes = r.length;
      next = r.heldNext;
    } else {
      moveTo(r, offset, end);
    }
    boolean atBatchBoundary = !out.isEmpty();
    while (next - offset < maxRecords && next < end && r.readInto()) {
      BatchHeader h = r.hold(next, verifyChecksums); // held either way: a read that starts in it finds the copy
      if (bytes + r.length > maxBytes && !(atLeastOne && out.isEmpty())) {
        atBatchBoundary = false;
        break;
      }
      out.add(Arrays.copyOf(r.buf, r.length));
      bytes += r.length;
      next = h.nextOffset();
      atBatchBoundary = true;
    }
    if (atBatchBoundary) {
      pool.remember(next, r);
    }
    return new BatchReadResult(out, next, bytes);
  }

  /** Stands the reader's tailer on the batch holding {@code offset} (below {@code end}). */
  private void moveTo(Reader r, long offset, long end) {
    r.held = false;
    long hinted = pool.hint(offset);
    // A consumer reading on finds the tailer it used last already standing on the next batch.
    boolean inPlace = hinted >= 0 && r.tailer.index() == hinted;
    // A hint can point past the end of a cycle or of the data when it was taken: then search.
    if (!inPlace && (hinted < 0 || !r.tailer.moveToIndex(hinted))) {
      long at = locate(r, offset, end);
      if (!r.tailer.moveToIndex(at)) {
        throw new StorageException("batch for offset " + offset + " not found at index " + Long.toHexString(at));
      }
    }
  }

  /** The Chronicle index of the batch holding {@code offset} (below {@code end}). */
  private long locate(Reader r, long offset, long end) {
    SegmentIndex.Position p = index.locate(offset, end, headers(r));
    if (p == null) {
      throw new OffsetOutOfRangeException(offset, bounds.start(), end);
    }
    return rollCycle.toIndex(p.cycle(), p.sequence());
  }

  /** The segment index's view of the batch headers, read with {@code r}. */
  private SegmentIndex.Headers headers(Reader r) {
    return (cycle, sequence) -> r.headerAt(rollCycle.toIndex(cycle, sequence));
  }

  /** The first offset whose record's timestamp reaches {@code timestampMs}; {@code end} when none does. */
  long offsetForTimestamp(Reader r, long timestampMs, long end) {
    SegmentIndex.Position p = index.firstBatchReaching(timestampMs, end, headers(r));
    if (!r.tailer.moveToIndex(rollCycle.toIndex(p.cycle(), p.sequence()))) {
      return end;
    }
    // Usually the batch found holds the answer. After retention its running max may count deleted
    // records only; then read on, headers only, to the first batch that may reach the target on its
    // own: only that one is read whole and decoded.
    r.held = false; // buf is overwritten below
    while (true) {
      try (DocumentContext dc = r.tailer.readingDocument()) {
        if (!dc.isPresent()) {
          return end;
        }
        Bytes<?> bytes = dc.wire().bytes();
        long start = bytes.readPosition();
        int length = (int) bytes.readRemaining();
        bytes.read(r.buf, 0, Math.min(length, BatchCodec.MAX_HEADER_SIZE));
        if (BatchCodec.info(r.buf, 0, length).baseOffset() >= end) {
          return end;
        }
        if (!BatchCodec.mayReach(r.buf, 0, timestampMs)) {
          continue;
        }
        bytes.readPosition(start); // this one may: the whole batch, from the document in hand
        r.copy(bytes);
      }
      long found = BatchCodec.firstOffsetAtOrAfter(r.buf, 0, r.length, timestampMs, r.in);
      if (found >= 0) {
        return Math.min(found, end);
      }
    }
  }

  /** Visits the headers of the batches from the one holding {@code from} to {@code end}. */
  void forEachBatch(Reader r, long from, long end, Consumer<BatchInfo> visitor) {
    if (!r.tailer.moveToIndex(locate(r, from, end))) {
      throw new StorageException("batch for offset " + from + " not found in " + dir);
    }
    for (long next = from; next < end; ) {
      try (DocumentContext dc = r.tailer.readingDocument()) {
        if (!dc.isPresent()) {
          break;
        }
        Bytes<?> bytes = dc.wire().bytes();
        int length = (int) bytes.readRemaining();
        bytes.read(r.buf, 0, Math.min(length, BatchCodec.MAX_HEADER_SIZE));
        BatchInfo info = BatchCodec.info(r.buf, 0, length);
        visitor.accept(info);
        next = info.baseOffset() + info.recordCount();
      }
    }
  }

  /** The segments held; a closed segment's last append time is read (with the lease's reader) only once. */
  List<SegmentInfo> segments(ReaderPool.Lease lease, long end) {
    SegmentIndex.Headers headers = (cycle, sequence) -> lease.reader().headerAt(rollCycle.toIndex(cycle, sequence));
    return index.describe(end, bounds.endLogPosition(), bounds.lastAppendTimeMs(), headers);
  }
}
