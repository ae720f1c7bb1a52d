package io.brook.client.internal;

import java.util.concurrent.ThreadLocalRandom;

/** Exponential backoff with jitter, from an initial to a maximum delay (Kafka's reconnect.backoff.*). */
public final class Backoff {
  private final long initialMs;
  private final long maxMs;
  private int failures;

  public Backoff(long initialMs, long maxMs) {
    this.initialMs = initialMs;
    this.maxMs = Math.max(initialMs, maxMs);
  }

  /** The delay before the next attempt; each call doubles it up to the maximum. */
  public long nextDelayMs() {
    long base = Math.min(maxMs, initialMs << Math.min(failures, 20));
    failures++;
    long jitter = base / 5;
    return Math.max(1, base - jitter + ThreadLocalRandom.current().nextLong(2 * jitter + 1));
  }

  public void reset() {
    failures = 0;
  }
}
