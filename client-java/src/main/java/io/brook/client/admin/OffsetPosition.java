package io.brook.client.admin;

/** Where {@link BrookAdmin#resetGroupOffsets} moves a group: the log start, the end, an offset or a time. */
public record OffsetPosition(Kind kind, long value) {
  /** Which position: {@code value} is the offset for OFFSET, the time (ms since the epoch) for TIMESTAMP. */
  public enum Kind { EARLIEST, LATEST, OFFSET, TIMESTAMP }

  /** Each partition's log start. */
  public static OffsetPosition earliest() {
    return new OffsetPosition(Kind.EARLIEST, 0);
  }

  /** Each partition's end: nothing left to read. */
  public static OffsetPosition latest() {
    return new OffsetPosition(Kind.LATEST, 0);
  }

  /** An exact offset, in [log start, end] of each partition (else that partition's OFFSET_OUT_OF_RANGE). */
  public static OffsetPosition offset(long offset) {
    return new OffsetPosition(Kind.OFFSET, offset);
  }

  /** The first record with a timestamp at or after this (ms since the epoch); the end when none. */
  public static OffsetPosition timestamp(long timestampMs) {
    return new OffsetPosition(Kind.TIMESTAMP, timestampMs);
  }
}
