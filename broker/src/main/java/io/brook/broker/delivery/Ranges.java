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

  public long[] toArray() {
    return Arrays.copyOf(pairs, size);
  }
}
