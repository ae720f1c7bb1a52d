package io.brook.broker.storage;

import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/** A clock tests move by hand, so segments roll and time passes without sleeping. */
public final class ManualClock implements InstantSource {
  private final AtomicLong millis;

  public ManualClock(long startMillis) {
    millis = new AtomicLong(startMillis);
  }

  public void advance(long ms) {
    millis.addAndGet(ms);
  }

  @Override
  public long millis() {
    return millis.get();
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis());
  }
}
