package io.brook.broker.storage.chronicle;

import io.brook.broker.storage.AppendBatch;
import io.brook.broker.storage.AppendResult;
import io.brook.broker.storage.BatchInfo;
import io.brook.broker.storage.BatchReadResult;
import io.brook.broker.storage.LogOptions;
import io.brook.broker.storage.OffsetOutOfRangeException;
import io.brook.broker.storage.PartitionLog;
import io.brook.broker.storage.ReadResult;
import io.brook.broker.storage.SegmentInfo;
import io.brook.broker.storage.StorageException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongFunction;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptAppender;

/**
 * A partition log stored in one Chronicle Queue: one Chronicle document per batch, one segment per
 * roll cycle. This class holds the rooms together and takes every lock; the work is theirs:
 * {@link LogLoader} (open and recovery, giving an immutable {@link RecoveredLog}), {@link SegmentIndex}
 * (offset and time → batch, without Chronicle), {@link ReaderPool} and {@link LogReads} (the fetch
 * path), {@link AppendPath} (the one writer), {@link SegmentDeletion} (retention), and
 * {@link ChronicleInternals} (every Chronicle impl class Brook needs).
 *
 * <p>Locks, in the order they are taken (never the other way round):
 * <ol>
 *   <li>{@code closeGate} (read-write): reads hold it shared; {@link #close} and the first step of
 *       {@link #deleteOldestSegments} hold it exclusively, so no read runs on a closed queue or a
 *       segment being deleted.
 *   <li>{@code appendLock}: one writer; {@link #append}, {@link #flush} and {@link #close}.
 * </ol>
 * Only {@link #close} takes both. Nothing else blocks: readers see appends through the end offset
 * the append path writes last (a volatile, see {@link LogBounds}); the segment index, the reader pool
 * and its hints are concurrent structures.
 */
public final class ChronicleLog implements PartitionLog {
  private final Path dir;
  private final ChronicleQueue queue;
  private final LogBounds bounds;
  private final SegmentIndex index;
  private final ReaderPool readers;
  private final LogReads reads;
  private final AppendPath appends;
  private final SegmentDeletion deletion;
  private final ReentrantReadWriteLock closeGate = new ReentrantReadWriteLock();
  private final ReentrantLock appendLock = new ReentrantLock();
  private volatile boolean closed;

  private ChronicleLog(Path dir, ChronicleQueue queue, RecoveredLog recovered, ExcerptAppender appender,
      boolean verifyChecksums) {
    this.dir = dir;
    this.queue = queue;
    this.bounds = new LogBounds(recovered);
    this.index = new SegmentIndex(recovered.segments());
    this.readers = new ReaderPool(queue);
    this.reads = new LogReads(dir, queue.rollCycle(), index, readers, bounds, verifyChecksums);
    this.appends = new AppendPath(dir, appender, index, bounds, recovered.lastCycle());
    this.deletion = new SegmentDeletion(queue, index, bounds, readers);
  }

  /** Opens (creating if needed) the log in {@code dir}, clearing what a crash left and recovering its bounds. */
  public static ChronicleLog open(Path dir, LogOptions options) {
    LogLoader.Loaded loaded = LogLoader.load(dir, options);
    ChronicleQueue queue = loaded.queue();
    try {
      // Created after recovery: recovery may first correct what Chronicle recorded of the last segment.
      ExcerptAppender appender = queue.createAppender();
      appender.singleThreadedCheckDisabled(true);
      return new ChronicleLog(dir, queue, loaded.recovered(), appender, options.verifyChecksums());
    } catch (RuntimeException e) {
      queue.close();
      throw e;
    }
  }

  @Override
  public AppendResult append(AppendBatch batch) {
    appendLock.lock();
    try {
      ensureOpen();
      return appends.append(batch);
    } finally {
      appendLock.unlock();
    }
  }

  /** Forces everything appended so far to the device (see {@link AppendPath#flush}). */
  @Override
  public void flush() {
    appendLock.lock();
    try {
      ensureOpen();
      appends.flush();
    } finally {
      appendLock.unlock();
    }
  }

  /** Files and directories forced so far (tests check what flush() covers). */
  long filesForced() {
    appendLock.lock();
    try {
      return appends.filesForced();
    } finally {
      appendLock.unlock();
    }
  }

  @Override
  public ReadResult read(long offset, int maxRecords, int maxBytes) {
    return reading(offset, maxRecords, ReadResult::empty,
        (r, end) -> reads.records(r, offset, end, maxRecords, maxBytes));
  }

  @Override
  public BatchReadResult readBatches(long offset, int maxRecords, int maxBytes, boolean atLeastOne) {
    return reading(offset, maxRecords, BatchReadResult::empty,
        (r, end) -> reads.batches(r, offset, end, maxRecords, maxBytes, atLeastOne));
  }

  private interface ReadWith<T> {
    T apply(Reader r, long end);
  }

  /** Both kinds of read: the range check, then the work with a reader that may still hold a batch. */
  private <T> T reading(long offset, int maxRecords, LongFunction<T> empty, ReadWith<T> read) {
    long end = bounds.end();
    long start = bounds.start();
    if (offset < start || offset > end) {
      throw new OffsetOutOfRangeException(offset, start, end);
    }
    if (offset == end || maxRecords <= 0) {
      ensureOpen();
      return empty.apply(offset);
    }
    return gated("read of ", lease -> read.apply(lease.keepingHeld(), end));
  }

  @Override
  public long offsetForTimestamp(long timestampMs) {
    long end = bounds.end(); // volatile read first: makes the running max current
    if (end == bounds.start() || bounds.runningMaxTimestamp() < timestampMs) {
      return end;
    }
    return gated("time lookup in ", lease -> reads.offsetForTimestamp(lease.reader(), timestampMs, end));
  }

  @Override
  public void forEachBatch(long fromOffset, Consumer<BatchInfo> visitor) {
    gated("scan of ", lease -> {
      long end = bounds.end();
      long from = Math.max(fromOffset, bounds.start());
      if (from < end) {
        reads.forEachBatch(lease.reader(), from, end, visitor);
      }
      return null;
    });
  }

  @Override
  public List<SegmentInfo> segments() {
    return gated("listing the segments of ", lease -> reads.segments(lease, bounds.end()));
  }

  /**
   * Runs {@code work} under the gate's shared side, on an open log, with a reader borrowed when first
   * asked for; Chronicle's own failures ("closed", store errors) become a {@link StorageException}
   * saying what failed.
   */
  private <T> T gated(String what, Function<ReaderPool.Lease, T> work) {
    closeGate.readLock().lock();
    try (ReaderPool.Lease lease = readers.lease()) {
      ensureOpen();
      return work.apply(lease);
    } catch (IllegalStateException e) {
      throw new StorageException(what + dir + " failed: " + e.getMessage(), e);
    } finally {
      closeGate.readLock().unlock();
    }
  }

  @Override
  public long startOffset() {
    return bounds.start();
  }

  @Override
  public long endOffset() {
    return bounds.end();
  }

  @Override
  public long sizeBytes() {
    long end = bounds.end(); // volatile read first: makes the end log position current
    return end == 0 ? 0 : index.sizeBytes(bounds.endLogPosition());
  }

  @Override
  public int segmentCount() {
    return index.size();
  }

  /** See {@link SegmentDeletion}: renamed under the gate, unlinked outside every lock. */
  @Override
  public long deleteOldestSegments(int count) {
    SegmentDeletion.Detached detached;
    closeGate.writeLock().lock();
    try {
      ensureOpen();
      detached = deletion.detachOldest(count);
    } finally {
      closeGate.writeLock().unlock();
    }
    if (detached != null) {
      SegmentDeletion.unlink(detached);
    }
    return bounds.start();
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
      readers.close();
      appends.close();
      queue.close();
    } finally {
      appendLock.unlock();
      closeGate.writeLock().unlock();
    }
  }
}
