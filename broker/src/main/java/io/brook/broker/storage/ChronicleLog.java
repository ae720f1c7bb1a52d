package io.brook.broker.storage;

import io.brook.broker.records.LogRecord;
import io.brook.broker.records.EncodedRecords;
import io.brook.protocol.batch.BatchFormat;
import io.brook.protocol.batch.BatchReader;
import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32C;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.core.time.TimeProvider;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.TailerDirection;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueStore;
import net.openhft.chronicle.wire.DocumentContext;
import net.openhft.chronicle.wire.Wires;

/**
 * A partition log stored in one Chronicle Queue: one Chronicle document per batch.
 *
 * <p>Offsets and Chronicle indexes. A Chronicle index is {@code (cycle, sequence)}; sequences are
 * contiguous within a cycle, but indexes are not across cycles, and a batch holds many offsets. So
 * each batch header carries its base offset, and the log keeps one entry per cycle (the base offset
 * of its first batch). To find offset X: the cycle whose first offset is the greatest at or below X,
 * then a binary search over that cycle's sequences by base offset. Sequential readers skip the
 * search through a small cache of "next offset → next index" hints. Recovery reads the first batch of
 * every cycle and the last batch of the queue: O(cycles), independent of the data size.
 */
public final class ChronicleLog implements PartitionLog {
  private static final int HINTS = 16;
  /** Retention renames a segment file to this before unlinking it: no longer a cycle file to Chronicle. */
  static final String DELETED_SUFFIX = ".deleted";

  private final SingleChronicleQueue queue;
  private final RollCycle rollCycle;
  /** Created after recovery: recovery may first correct what Chronicle recorded of the last segment. */
  private ExcerptAppender appender;
  private final ReentrantLock appendLock = new ReentrantLock();
  /** Reads hold it shared, close() exclusively: a queue is never closed under a running read. */
  private final ReentrantReadWriteLock closeGate = new ReentrantReadWriteLock();
  /** Segment files appended to since the last flush (guarded by appendLock). */
  private final Set<File> unflushed = new LinkedHashSet<>();
  private boolean newFileSinceFlush;
  private long filesForced;
  private final Path dir;
  private final ByteWriter scratch = new ByteWriter(64 * 1024);
  private final CRC32C appendCrc = new CRC32C();
  private final ConcurrentLinkedQueue<Reader> readers = new ConcurrentLinkedQueue<>();
  private final boolean verifyChecksums;
  /** First offset of each cycle → the cycle and what its first batch says. */
  private final ConcurrentSkipListMap<Long, Segment> segments = new ConcurrentSkipListMap<>();
  private final long[] hintOffsets = new long[HINTS];
  private final long[] hintIndexes = new long[HINTS];
  private int nextHint;

  /** The only volatile the append path writes, last: readers read it first, then the fields below. */
  private volatile long endOffset;
  private volatile long startOffset;
  private long runningMaxTimestamp = Long.MIN_VALUE;
  private long endLogPosition;
  private long lastAppendTimeMs;
  /** The last batch's append time of segments no longer written (by cycle): they never change. */
  private final Map<Integer, Long> closedSegmentAppendTime = new java.util.concurrent.ConcurrentHashMap<>();
  private volatile int lastCycle = Integer.MIN_VALUE;
  private volatile boolean closed;

  /** One cycle of the queue: a segment, and the file that holds it. */
  private record Segment(int cycle, long firstOffset, long firstRunningMax, long firstLogPosition, File file) {}

  /** A pooled tailer with its copy buffer: tailers are not thread-safe, so each read borrows one. */
  private static final class Reader {
    final ExcerptTailer tailer;
    final BatchReader in = new BatchReader();
    final CRC32C crc = new CRC32C();
    byte[] buf = new byte[64 * 1024];
    /** Bytes of the document {@link #readInto} copied into {@code buf}. */
    int length;
    /**
     * {@code buf} holds the batch [heldBase, heldNext) of {@code length} bytes, checked, and the
     * tailer stands on the batch after it: set by {@link #read} and {@link #readBatches} only, cleared by every
     * other borrower.
     */
    boolean held;
    long heldBase;
    long heldNext;

    Reader(ExcerptTailer tailer) {
      this.tailer = tailer;
    }
  }

  private ChronicleLog(Path dir, SingleChronicleQueue queue, boolean verifyChecksums) {
    this.dir = dir;
    this.queue = queue;
    this.rollCycle = queue.rollCycle();
    this.verifyChecksums = verifyChecksums;
    java.util.Arrays.fill(hintOffsets, -1);
  }

  /** Opens (creating if needed) the log in {@code dir}, clearing stale locks and recovering bounds. */
  public static ChronicleLog open(Path dir, LogOptions options) {
    UnfinishedFiles.remove(dir); // a kill while Chronicle created a file: it would stall on it, then fail
    ChronicleLocks.clearStale(dir);
    removeDeletedLeftovers(dir);
    TimeProvider time = options.clock()::millis;
    SingleChronicleQueue queue = SingleChronicleQueueBuilder.binary(dir)
        .rollCycle(options.roll().rollCycle())
        .timeProvider(time)
        .build();
    ChronicleLog log = new ChronicleLog(dir, queue, options.verifyChecksums());
    try {
      log.recover();
      log.appender = queue.createAppender();
      log.appender.singleThreadedCheckDisabled(true);
    } catch (RuntimeException e) {
      log.close();
      throw e;
    }
    return log;
  }

  private void recover() {
    Reader r = borrow();
    try {
      long lastIndex = queue.lastIndex();
      for (int cycle = queue.firstCycle(); cycle >= 0 && cycle <= queue.lastCycle(); ) {
        BatchHeader first = headerAt(r, rollCycle.toIndex(cycle, 0));
        if (first != null) {
          segments.put(first.baseOffset(), new Segment(cycle, first.baseOffset(), first.runningMaxTimestamp(),
              first.logPosition(), r.tailer.currentFile()));
          lastCycle = cycle;
        }
        int next = nextCycle(cycle);
        if (next <= cycle) {
          break;
        }
        cycle = next;
      }
      // Chronicle's lastIndex() can stop short of the last complete document, or name it without having
      // recorded it: a writer killed after Chronicle marked its document complete, before it recorded the
      // segment's write position and index, leaves a batch every reader sees. Alone in its segment,
      // lastIndex() does not count it (a later segment), or counts it while the write position says the
      // segment is empty (the queue's first). The log ends where readers see it end, or the next append
      // would reuse the batch's offsets; and the segment's write position is set to it, or Chronicle's
      // appender would write after it but number its documents from 0 again.
      BatchHeader last = null;
      long lastPosition = -1;
      if (lastIndex >= 0) {
        if (!r.tailer.moveToIndex(lastIndex) || (lastPosition = readIntoAt(r)) < 0) {
          throw new StorageException("cannot read the last batch of " + queue.fileAbsolutePath());
        }
        last = BatchCodec.header(r.buf, 0, r.length);
      } else {
        r.tailer.toStart(); // Chronicle counts no document; one it did not count may be there
      }
      int lastDocumentCycle = last == null ? -1 : rollCycle.toCycle(r.tailer.lastReadIndex());
      for (long position; (position = readIntoAt(r)) >= 0; ) {
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
        return; // empty: offsets start at 0
      }
      if (!BatchCodec.checksumMatches(r.buf, 0, r.length, r.crc)) {
        throw new StorageException("the last batch of " + queue.fileAbsolutePath() + " fails its checksum");
      }
      recordWritePosition(lastDocumentCycle, lastPosition);
      runningMaxTimestamp = last.runningMaxTimestamp();
      endLogPosition = last.endLogPosition();
      lastAppendTimeMs = last.appendTimeMs();
      startOffset = segments.isEmpty() ? last.baseOffset() : segments.firstKey();
      endOffset = last.nextOffset();
    } finally {
      release(r);
    }
  }

  private int nextCycle(int cycle) {
    try {
      return queue.nextCycle(cycle, TailerDirection.FORWARD);
    } catch (java.text.ParseException e) {
      throw new StorageException("unreadable cycle file name in " + queue.fileAbsolutePath(), e);
    }
  }

  @Override
  public AppendResult append(AppendBatch batch) {
    appendLock.lock();
    try {
      ensureOpen();
      long base = endOffset;
      BatchHeader h = BatchCodec.encode(scratch, batch, base, runningMaxTimestamp, endLogPosition, appendCrc);
      try (DocumentContext dc = appender.writingDocument()) {
        boolean written = false;
        try {
          Bytes<?> out = dc.wire().bytes();
          MappedCopy.write(out, scratch.array(), 0, scratch.position());
          EncodedRecords encoded = batch.encoded();
          if (encoded != null) { // the producer's section follows the header as it came
            MappedCopy.write(out, encoded.array(), encoded.offset(), encoded.length());
          }
          written = true;
        } finally {
          if (!written) {
            dc.rollbackOnClose(); // whatever failed (an Error too): never commit half a batch
          }
        }
      }
      int cycle = appender.cycle(); // not lastIndexAppended(): Chronicle computes that by scanning
      if (cycle != lastCycle || unflushed.isEmpty()) {
        unflushed.add(appender.currentFile()); // otherwise it is in the set already
      }
      if (cycle != lastCycle) {
        newFileSinceFlush = true; // a segment file was created: its directory entry needs forcing too
        segments.put(base, new Segment(cycle, base, h.runningMaxTimestamp(), h.logPosition(), appender.currentFile()));
        lastCycle = cycle;
      }
      runningMaxTimestamp = h.runningMaxTimestamp();
      endLogPosition = h.endLogPosition();
      lastAppendTimeMs = h.appendTimeMs();
      endOffset = h.nextOffset(); // volatile write last: publishes the batch to readers
      return new AppendResult(base, h.recordCount(), h.appendTimeMs(), startOffset());
    } finally {
      appendLock.unlock();
    }
  }

  @Override
  public ReadResult read(long offset, int maxRecords, int maxBytes) {
    return reading(offset, maxRecords, ReadResult::empty,
        (r, end) -> readRecords(r, offset, end, maxRecords, maxBytes));
  }

  @Override
  public BatchReadResult readBatches(long offset, int maxRecords, int maxBytes, boolean atLeastOne) {
    return reading(offset, maxRecords, BatchReadResult::empty,
        (r, end) -> readWholeBatches(r, offset, end, maxRecords, maxBytes, atLeastOne));
  }

  /** A read with a pooled reader: the range check, the close gate and Chronicle's failures, for both kinds. */
  private <T> T reading(long offset, int maxRecords, java.util.function.LongFunction<T> empty, ReadWith<T> read) {
    long end = endOffset;
    long start = startOffset();
    if (offset < start || offset > end) {
      throw new OffsetOutOfRangeException(offset, start, end);
    }
    if (offset == end || maxRecords <= 0) {
      ensureOpen();
      return empty.apply(offset);
    }
    closeGate.readLock().lock();
    Reader r = null;
    try {
      ensureOpen();
      r = borrowKeeping();
      return read.apply(r, end);
    } catch (IllegalStateException e) { // Chronicle's own "closed" and store failures
      throw new StorageException("read of " + dir + " failed: " + e.getMessage(), e);
    } finally {
      if (r != null) {
        release(r);
      }
      closeGate.readLock().unlock();
    }
  }

  private interface ReadWith<T> {
    T apply(Reader r, long end);
  }

  private ReadResult readRecords(Reader r, long offset, long end, int maxRecords, int maxBytes) {
    List<LogRecord> out = new ArrayList<>(Math.min(maxRecords, 1024));
    int bytes = 0;
    long next = offset;
    boolean atBatchBoundary = false;
    if (r.held && r.heldBase <= offset && offset < r.heldNext) {
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
      moveTo(r, offset);
    }
    while (out.size() < maxRecords && next < end && readInto(r)) {
      atBatchBoundary = false;
      BatchHeader h = hold(r, next);
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
      remember(next, r); // the tailer now stands on the batch that starts at next
    }
    return new ReadResult(out, next);
  }

  private BatchReadResult readWholeBatches(Reader r, long offset, long end, int maxRecords, int maxBytes,
      boolean atLeastOne) {
    List<byte[]> out = new ArrayList<>();
    int bytes = 0;
    long next = offset;
    if (r.held && r.heldBase <= offset && offset < r.heldNext) {
      // The batch a previous read stopped before (or inside) is still in the buffer.
      if (!atLeastOne && r.length > maxBytes) {
        return BatchReadResult.empty(offset);
      }
      out.add(Arrays.copyOf(r.buf, r.length));
      bytes = r.length;
      next = r.heldNext;
    } else {
      moveTo(r, offset);
    }
    boolean atBatchBoundary = !out.isEmpty();
    while (next - offset < maxRecords && next < end && readInto(r)) {
      BatchHeader h = hold(r, next); // held either way: a read that starts in it finds the copy
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
      remember(next, r);
    }
    return new BatchReadResult(out, next, bytes);
  }

  /**
   * After {@link #readInto}: checks the batch in the buffer (when checksums are verified) and makes it
   * the batch the reader holds, the tailer standing on the one after it.
   */
  private BatchHeader hold(Reader r, long next) {
    if (verifyChecksums && !BatchCodec.checksumMatches(r.buf, 0, r.length, r.crc)) {
      throw new StorageException("batch at offset " + next + " fails its checksum");
    }
    BatchHeader h = BatchCodec.header(r.buf, 0, r.length);
    if (next < h.baseOffset() || next >= h.nextOffset()) { // a misplaced tailer must fail, not skip offsets
      throw new StorageException("read for offset " + next + " found the batch [" + h.baseOffset() + ", "
          + h.nextOffset() + ")");
    }
    r.held = true;
    r.heldBase = h.baseOffset();
    r.heldNext = h.nextOffset();
    return h;
  }

  /** Stands the reader's tailer on the batch holding {@code offset} (below the end offset). */
  private void moveTo(Reader r, long offset) {
    r.held = false;
    long hinted = hint(offset);
    // A consumer reading on finds the tailer it used last already standing on the next batch.
    boolean inPlace = hinted >= 0 && r.tailer.index() == hinted;
    // A hint can point past the end of a cycle or of the data when it was taken: then search.
    if (!inPlace && (hinted < 0 || !r.tailer.moveToIndex(hinted))) {
      long index = locate(r, offset);
      if (!r.tailer.moveToIndex(index)) {
        throw new StorageException("batch for offset " + offset + " not found at index " + Long.toHexString(index));
      }
    }
  }

  /** Copies the next document into the reader's buffer; false when there is none yet. */
  private boolean readInto(Reader r) {
    return readIntoAt(r) >= 0;
  }

  /** As {@link #readInto}, returning the file position of the document's header; -1 when there is none. */
  private long readIntoAt(Reader r) {
    try (DocumentContext dc = r.tailer.readingDocument()) {
      if (!dc.isPresent()) {
        return -1;
      }
      r.held = false; // buf is overwritten below, whether or not the copy completes
      Bytes<?> bytes = dc.wire().bytes();
      long headerPosition = bytes.readPosition() - Wires.SPB_HEADER_SIZE;
      int length = (int) bytes.readRemaining();
      if (r.buf.length < length) {
        r.buf = new byte[Math.max(length, r.buf.length * 2)];
      }
      MappedCopy.read(bytes, r.buf, length);
      r.length = length;
      return headerPosition;
    }
  }

  /** Records the document at {@code headerPosition} as written in its segment (a no-op when Chronicle did). */
  private void recordWritePosition(int cycle, long headerPosition) {
    SingleChronicleQueueStore store = queue.storeForCycle(cycle, queue.epoch(), false, null);
    if (store == null) {
      throw new StorageException("segment " + cycle + " of " + queue.fileAbsolutePath() + " cannot be opened");
    }
    try {
      store.writePosition(headerPosition);
    } finally {
      queue.closeStore(store);
    }
  }

  /** The header of the batch at {@code index}, or null when there is no document there. */
  private BatchHeader headerAt(Reader r, long index) {
    if (!r.tailer.moveToIndex(index)) {
      return null;
    }
    try (DocumentContext dc = r.tailer.readingDocument()) {
      if (!dc.isPresent()) {
        return null;
      }
      Bytes<?> bytes = dc.wire().bytes();
      int length = (int) bytes.readRemaining();
      int n = Math.min(length, BatchFormat.HEADER_SIZE);
      bytes.read(r.buf, 0, n);
      return BatchCodec.header(r.buf, 0, length);
    }
  }

  /** The index of the batch holding {@code offset} (which is below the end offset). */
  private long locate(Reader r, long offset) {
    Map.Entry<Long, Segment> entry = segments.floorEntry(offset);
    if (entry == null) {
      throw new OffsetOutOfRangeException(offset, startOffset(), endOffset);
    }
    Segment s = entry.getValue();
    Map.Entry<Long, Segment> following = segments.higherEntry(entry.getKey());
    long offsetsInCycle = (following == null ? endOffset : following.getKey()) - s.firstOffset();
    // Sequence of the last batch at or below offset: batches hold >= 1 record, so at most offsetsInCycle.
    long lo = 0;
    long hi = Math.min(offsetsInCycle - 1, offset - s.firstOffset());
    while (lo < hi) {
      long mid = (lo + hi + 1) >>> 1;
      BatchHeader h = headerAt(r, rollCycle.toIndex(s.cycle(), mid));
      if (h == null || h.baseOffset() > offset) {
        hi = mid - 1;
      } else {
        lo = mid;
      }
    }
    return rollCycle.toIndex(s.cycle(), lo);
  }

  private synchronized long hint(long offset) {
    for (int i = 0; i < HINTS; i++) {
      if (hintOffsets[i] == offset) {
        return hintIndexes[i];
      }
    }
    return -1;
  }

  /** After a read that ended on a batch boundary, remember where the next batch is. */
  private void remember(long nextOffset, Reader r) {
    long index = r.tailer.index();
    if (index < 0) {
      return;
    }
    synchronized (this) {
      for (int i = 0; i < HINTS; i++) {
        if (hintOffsets[i] == nextOffset) {
          return;
        }
      }
      hintOffsets[nextHint] = nextOffset;
      hintIndexes[nextHint] = index;
      nextHint = (nextHint + 1) % HINTS;
    }
  }

  @Override
  public long startOffset() {
    return startOffset;
  }

  @Override
  public long endOffset() {
    return endOffset;
  }

  @Override
  public long offsetForTimestamp(long timestampMs) {
    long end = endOffset; // volatile read first: makes runningMaxTimestamp current
    if (end == startOffset || runningMaxTimestamp < timestampMs) {
      return end;
    }
    closeGate.readLock().lock();
    Reader r = null;
    try {
      ensureOpen();
      r = borrow();
      // The last segment whose first batch's running max is below the target holds the answer, or
      // the answer is the first batch of the segment after it.
      Segment chosen = null;
      for (Segment s : segments.values()) {
        if (s.firstRunningMax() >= timestampMs) {
          break;
        }
        chosen = s;
      }
      long index;
      if (chosen == null) {
        index = rollCycle.toIndex(segments.firstEntry().getValue().cycle(), 0);
      } else {
        index = firstBatchReaching(r, chosen, timestampMs);
      }
      if (!r.tailer.moveToIndex(index) || !readInto(r)) {
        return end;
      }
      long found = BatchCodec.firstOffsetAtOrAfter(r.buf, 0, r.length, timestampMs, r.in);
      return found < 0 ? end : found;
    } catch (IllegalStateException e) {
      throw new StorageException("time lookup in " + dir + " failed: " + e.getMessage(), e);
    } finally {
      if (r != null) {
        release(r);
      }
      closeGate.readLock().unlock();
    }
  }

  /** Binary search in a segment for the first batch whose running max reaches the target. */
  private long firstBatchReaching(Reader r, Segment s, long timestampMs) {
    Map.Entry<Long, Segment> following = segments.higherEntry(s.firstOffset());
    long lo = 0;
    long hi = (following == null ? endOffset : following.getKey()) - s.firstOffset(); // one past the max seq
    while (lo < hi) {
      long mid = (lo + hi) >>> 1;
      BatchHeader h = headerAt(r, rollCycle.toIndex(s.cycle(), mid));
      if (h == null || h.runningMaxTimestamp() >= timestampMs) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    BatchHeader h = headerAt(r, rollCycle.toIndex(s.cycle(), lo));
    if (h == null && following != null) {
      return rollCycle.toIndex(following.getValue().cycle(), 0);
    }
    return rollCycle.toIndex(s.cycle(), lo);
  }

  @Override
  public void forEachBatch(long fromOffset, java.util.function.Consumer<BatchInfo> visitor) {
    closeGate.readLock().lock();
    Reader r = null;
    try {
      ensureOpen();
      long end = endOffset;
      long from = Math.max(fromOffset, startOffset);
      if (from >= end) {
        return;
      }
      r = borrow();
      if (!r.tailer.moveToIndex(locate(r, from))) {
        throw new StorageException("batch for offset " + from + " not found in " + dir);
      }
      for (long next = from; next < end; ) {
        try (DocumentContext dc = r.tailer.readingDocument()) {
          if (!dc.isPresent()) {
            break;
          }
          Bytes<?> bytes = dc.wire().bytes();
          int length = (int) bytes.readRemaining();
          bytes.read(r.buf, 0, Math.min(length, BatchFormat.HEADER_SIZE_WITH_PRODUCER));
          BatchInfo info = BatchCodec.info(r.buf, 0, length);
          visitor.accept(info);
          next = info.baseOffset() + info.recordCount();
        }
      }
    } catch (IllegalStateException e) {
      throw new StorageException("scan of " + dir + " failed: " + e.getMessage(), e);
    } finally {
      if (r != null) {
        release(r);
      }
      closeGate.readLock().unlock();
    }
  }

  @Override
  public long sizeBytes() {
    long end = endOffset; // volatile read first: makes endLogPosition current
    Map.Entry<Long, Segment> first = segments.firstEntry();
    return first == null || end == 0 ? 0 : endLogPosition - first.getValue().firstLogPosition();
  }

  @Override
  public int segmentCount() {
    return segments.size();
  }

  @Override
  public List<SegmentInfo> segments() {
    closeGate.readLock().lock();
    Reader r = null;
    try {
      ensureOpen();
      long end = endOffset; // volatile read first: makes endLogPosition and lastAppendTimeMs current
      long endPosition = endLogPosition;
      long lastAppend = lastAppendTimeMs;
      List<Segment> held = new ArrayList<>(segments.values());
      List<SegmentInfo> out = new ArrayList<>(held.size());
      for (int i = 0; i < held.size(); i++) {
        Segment s = held.get(i);
        if (i == held.size() - 1) {
          out.add(new SegmentInfo(s.firstOffset(), end, endPosition - s.firstLogPosition(), lastAppend));
          break;
        }
        Segment next = held.get(i + 1);
        Long appended = closedSegmentAppendTime.get(s.cycle());
        if (appended == null) {
          if (r == null) {
            r = borrow();
          }
          BatchHeader last = headerAt(r, locate(r, next.firstOffset() - 1));
          if (last == null) {
            throw new StorageException("the last batch of segment " + s.file() + " cannot be read");
          }
          appended = last.appendTimeMs();
          closedSegmentAppendTime.put(s.cycle(), appended);
        }
        out.add(new SegmentInfo(s.firstOffset(), next.firstOffset(), next.firstLogPosition() - s.firstLogPosition(),
            appended));
      }
      return out;
    } catch (IllegalStateException e) {
      throw new StorageException("listing the segments of " + dir + " failed: " + e.getMessage(), e);
    } finally {
      if (r != null) {
        release(r);
      }
      closeGate.readLock().unlock();
    }
  }

  /**
   * Drops the oldest segments from the map, closes every pooled tailer (a tailer keeps the file it
   * last read mapped, and a mapped file frees no space), renames the files out of the queue's sight
   * and refreshes Chronicle's directory listing, all under the close gate, so no read runs meanwhile;
   * then unlinks the renamed files outside every lock, so appends and reads go on while the file
   * system frees the blocks. Renaming first matters: a read right after the gate opens creates a
   * tailer, which maps the oldest cycle Chronicle lists; a file unlinked under it is created again,
   * empty, and the tailer waits 10 s for its header.
   */
  @Override
  public long deleteOldestSegments(int count) {
    List<Path> renamed = new ArrayList<>();
    List<String> failed = new ArrayList<>();
    closeGate.writeLock().lock();
    try {
      ensureOpen();
      List<Segment> doomed = new ArrayList<>();
      for (int i = 0; i < count && segments.size() > 1; i++) {
        doomed.add(segments.pollFirstEntry().getValue());
      }
      if (doomed.isEmpty()) {
        return startOffset;
      }
      startOffset = segments.firstKey();
      for (Reader r; (r = readers.poll()) != null; ) {
        r.tailer.close();
      }
      synchronized (this) {
        java.util.Arrays.fill(hintOffsets, -1);
      }
      for (Segment s : doomed) {
        closedSegmentAppendTime.remove(s.cycle());
        Path file = s.file().toPath();
        Path gone = file.resolveSibling(file.getFileName() + DELETED_SUFFIX);
        try {
          java.nio.file.Files.move(file, gone, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
          renamed.add(gone);
        } catch (IOException e) {
          failed.add(file + " (" + e.getMessage() + ")");
        }
      }
      queue.refreshDirectoryListing(); // else Chronicle still lists the deleted cycles
    } finally {
      closeGate.writeLock().unlock();
    }
    // Chronicle unmaps closed tailers' files on a background thread: wait for it, so the unlink frees
    // the space now rather than whenever that thread gets to it.
    net.openhft.chronicle.core.io.BackgroundResourceReleaser.releasePendingResources();
    for (Path gone : renamed) {
      try {
        java.nio.file.Files.deleteIfExists(gone);
      } catch (IOException e) {
        failed.add(gone + " (" + e.getMessage() + "; removed at the next start)");
      }
    }
    if (!failed.isEmpty()) {
      // The start offset has moved on regardless; a restart would find files not renamed and serve them again.
      throw new StorageException("cannot delete segment files " + failed);
    }
    return startOffset;
  }

  /** Segment files retention renamed but did not unlink before a crash: removed at the next open. */
  private static void removeDeletedLeftovers(Path dir) {
    try (java.nio.file.DirectoryStream<Path> left = java.nio.file.Files.newDirectoryStream(dir, "*" + DELETED_SUFFIX)) {
      for (Path f : left) {
        java.nio.file.Files.deleteIfExists(f);
      }
    } catch (java.nio.file.NoSuchFileException e) {
      // a new partition: nothing left over
    } catch (IOException e) {
      throw new StorageException("cannot remove deleted segments in " + dir + ": " + e.getMessage(), e);
    }
  }

  /**
   * Forces every segment file appended to since the last flush (fsync: on Linux it writes back the
   * dirty pages of the mapping; Chronicle's own sync() is msync(MS_ASYNC) by default, which waits
   * for nothing), and the directory when a segment file was created, so the file itself survives a
   * power loss too.
   */
  @Override
  public void flush() {
    appendLock.lock();
    try {
      ensureOpen();
      for (File f : unflushed) {
        force(f.toPath(), StandardOpenOption.WRITE);
      }
      if (newFileSinceFlush) {
        force(dir, StandardOpenOption.READ);
      }
      unflushed.clear();
      newFileSinceFlush = false;
    } finally {
      appendLock.unlock();
    }
  }

  private void force(Path path, StandardOpenOption mode) {
    try (FileChannel c = FileChannel.open(path, mode)) {
      c.force(true);
      filesForced++;
    } catch (IOException e) {
      throw new StorageException("cannot force " + path + " to the device: " + e.getMessage(), e);
    }
  }

  /** Files and directories forced so far (tests check what flush() covers). */
  long filesForced() {
    appendLock.lock();
    try {
      return filesForced;
    } finally {
      appendLock.unlock();
    }
  }

  /** A reader for anything but {@link #read}: what its buffer and tailer hold is forgotten. */
  private Reader borrow() {
    Reader r = borrowKeeping();
    r.held = false;
    return r;
  }

  private Reader borrowKeeping() {
    Reader r = readers.poll();
    if (r == null) {
      ExcerptTailer tailer = queue.createTailer();
      tailer.singleThreadedCheckDisabled(true);
      r = new Reader(tailer);
    }
    return r;
  }

  private void release(Reader r) {
    if (closed) {
      r.tailer.close();
    } else {
      readers.offer(r);
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw new StorageException("the partition log " + queue.fileAbsolutePath() + " is closed");
    }
  }

  @Override
  public void close() {
    closeGate.writeLock().lock(); // waits for reads in flight
    appendLock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      for (Reader r; (r = readers.poll()) != null; ) {
        r.tailer.close();
      }
      if (appender != null) {
        appender.close(); // null when the open failed
      }
      queue.close();
    } finally {
      appendLock.unlock();
      closeGate.writeLock().unlock();
    }
  }
}
