package io.brook.broker.storage;

import java.time.InstantSource;

/**
 * How a partition log is opened.
 *
 * @param roll the segment roll, used when the partition is created (an existing one keeps its own)
 * @param clock decides which segment an append lands in; tests inject a manual clock to roll
 * @param verifyChecksums check every batch's CRC32C on read (the dump tool and recovery always do)
 */
public record LogOptions(SegmentRoll roll, InstantSource clock, boolean verifyChecksums) {
  public static LogOptions defaults() {
    return new LogOptions(SegmentRoll.HOUR, InstantSource.system(), false);
  }

  public LogOptions withRoll(SegmentRoll r) {
    return new LogOptions(r, clock, verifyChecksums);
  }

  public LogOptions withClock(InstantSource c) {
    return new LogOptions(roll, c, verifyChecksums);
  }
}
