package io.brook.broker.delivery;

import java.util.Arrays;

/** Offsets collected in order as inclusive ranges (first, last, first, last, ...): how the journal stores them. */
public final class Ranges {
  private long[] pairs = new long[8];
  private int size;

  public void add(long offset) {
    if (size > 0 && pairs[size - 1] == offset - 1) {
      pairs[size - 1] = offset;
      return;
    }
    if (size == pairs.length) {
      pairs = Arrays.copyOf(pairs, size * 2);
    }
    pairs[size++] = offset;
    pairs[size++] = offset;
  }

  public boolean isEmpty() {
    return size == 0;
  }

  /** Offsets held. */
  public int count() {
    long n = 0;
    for (int i = 0; i < size; i += 2) {
      n += pairs[i + 1] - pairs[i] + 1;
    }
    return (int) n;
  }

  public long[] toArray() {
    return Arrays.copyOf(pairs, size);
  }
}
