package io.brook.broker.storage.chronicle;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptTailer;

/**
 * The log's readers: pooled tailers (each keeps the batch its last read stopped in, see
 * {@link Reader}), and a small cache of "next offset → Chronicle index" hints, so a consumer reading
 * on skips the search for its next batch. Lock-free: the pool is a concurrent queue, each hint an
 * immutable pair in an atomic slot.
 */
final class ReaderPool {
  private static final int HINTS = 16;

  private final ChronicleQueue queue;
  private final ConcurrentLinkedQueue<Reader> idle = new ConcurrentLinkedQueue<>();
  private final AtomicReferenceArray<Hint> hints = new AtomicReferenceArray<>(HINTS);
  private final AtomicInteger nextHint = new AtomicInteger();
  private volatile boolean closed;

  /** The batch starting at {@code offset} is at Chronicle index {@code index}. */
  private record Hint(long offset, long index) {}

  ReaderPool(ChronicleQueue queue) {
    this.queue = queue;
  }

  /** A reader borrowed on first use, returned by {@link #close}: for reads that may need none. */
  final class Lease implements AutoCloseable {
    private Reader reader;

    /** The reader, forgetting what its buffer and tailer hold: for anything but the record and batch reads. */
    Reader reader() {
      if (reader == null) {
        reader = borrowKeeping();
        reader.held = false;
      }
      return reader;
    }

    /** The reader with the batch it may still hold: for the record and batch reads. */
    Reader keepingHeld() {
      if (reader == null) {
        reader = borrowKeeping();
      }
      return reader;
    }

    @Override
    public void close() {
      if (reader != null) {
        release(reader);
        reader = null;
      }
    }
  }

  Lease lease() {
    return new Lease();
  }

  private Reader borrowKeeping() {
    Reader r = idle.poll();
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
      idle.offer(r);
    }
  }

  /** The Chronicle index hinted for the batch starting at {@code offset}, or -1. */
  long hint(long offset) {
    for (int i = 0; i < HINTS; i++) {
      Hint h = hints.get(i);
      if (h != null && h.offset() == offset) {
        return h.index();
      }
    }
    return -1;
  }

  /** After a read that ended on a batch boundary: the batch at {@code nextOffset} is where {@code r} stands. */
  void remember(long nextOffset, Reader r) {
    long index = r.tailer.index();
    if (index < 0 || hint(nextOffset) >= 0) {
      return;
    }
    hints.set(Math.floorMod(nextHint.getAndIncrement(), HINTS), new Hint(nextOffset, index));
  }

  /**
   * Closes every idle tailer (a tailer keeps the file it last read mapped, and a mapped file frees no
   * space) and forgets the hints: for segment deletion, while no read runs.
   */
  void closeIdle() {
    for (Reader r; (r = idle.poll()) != null; ) {
      r.tailer.close();
    }
    for (int i = 0; i < HINTS; i++) {
      hints.set(i, null);
    }
  }

  /** Closes the idle tailers, and every borrowed one when it comes back. */
  void close() {
    closed = true;
    for (Reader r; (r = idle.poll()) != null; ) {
      r.tailer.close();
    }
  }
}
