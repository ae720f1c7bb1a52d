package io.brook.broker.disk;

import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;

/**
 * Counts the logs being appended: those whose end moved within the last window. Called from the
 * disk guard's thread only; logs that disappeared (deleted topics) are forgotten at the next count.
 *
 * @param <W> a log, compared by identity
 */
public final class ActiveWriters<W> {
  private final long windowNanos;
  private final LongSupplier nanoTime;
  private Map<W, long[]> seen = new IdentityHashMap<>();

  public ActiveWriters(long windowMillis, LongSupplier nanoTime) {
    this.windowNanos = windowMillis * 1_000_000L;
    this.nanoTime = nanoTime;
  }

  /** How many of {@code writers} moved their {@code end} within the window. */
  public synchronized int count(Collection<? extends W> writers, ToLongFunction<? super W> end) {
    long now = nanoTime.getAsLong();
    Map<W, long[]> next = new IdentityHashMap<>(writers.size() * 2);
    int active = 0;
    for (W w : writers) {
      long position = end.applyAsLong(w);
      long[] s = seen.get(w);
      if (s == null) {
        s = new long[] {position, now - windowNanos - 1}; // first seen: not active until it moves
      } else if (s[0] != position) {
        s[0] = position;
        s[1] = now;
      }
      if (now - s[1] <= windowNanos) {
        active++;
      }
      next.put(w, s);
    }
    seen = next;
    return active;
  }
}
