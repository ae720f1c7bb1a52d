package io.brook.broker.forward;

/** Exponential backoff after failures: 100 ms doubling up to a cap, back to the start after a success. */
final class Backoff {
  static final long FIRST_MS = 100;
  private final long maxMs;
  private long nextMs = FIRST_MS;

  Backoff(long maxMs) {
    this.maxMs = maxMs;
  }

  /** The wait before the next try; the one after it doubles. */
  long next() {
    long wait = nextMs;
    nextMs = Math.min(maxMs, nextMs * 2);
    return Math.min(wait, maxMs);
  }

  void reset() {
    nextMs = FIRST_MS;
  }
}
