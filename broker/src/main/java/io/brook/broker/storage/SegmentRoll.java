package io.brook.broker.storage;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.RollCycles;
import net.openhft.chronicle.queue.rollcycles.TestRollCycles;

/**
 * How often a partition starts a new segment (a Chronicle roll cycle). Fixed when a partition is
 * created: Chronicle cannot change a queue's roll cycle later. Retention deletes whole segments, so
 * this is also retention's granularity. {@code 1s} exists for tests.
 */
public enum SegmentRoll {
  ONE_SECOND("1s", TestRollCycles.TEST_SECONDLY),
  FIVE_MINUTES("5m", RollCycles.FIVE_MINUTELY),
  TEN_MINUTES("10m", RollCycles.TEN_MINUTELY),
  TWENTY_MINUTES("20m", RollCycles.TWENTY_MINUTELY),
  HALF_HOUR("30m", RollCycles.HALF_HOURLY),
  HOUR("1h", RollCycles.FAST_HOURLY),
  TWO_HOURS("2h", RollCycles.TWO_HOURLY),
  FOUR_HOURS("4h", RollCycles.FOUR_HOURLY),
  SIX_HOURS("6h", RollCycles.SIX_HOURLY),
  DAY("1d", RollCycles.FAST_DAILY),
  WEEK("1w", RollCycles.WEEKLY);

  private final String label;
  private final RollCycle rollCycle;

  SegmentRoll(String label, RollCycle rollCycle) {
    this.label = label;
    this.rollCycle = rollCycle;
  }

  public String label() {
    return label;
  }

  public long lengthMillis() {
    return rollCycle.lengthInMillis();
  }

  RollCycle rollCycle() {
    return rollCycle;
  }

  public static SegmentRoll parse(String label) {
    String wanted = label.trim().toLowerCase(Locale.ROOT);
    for (SegmentRoll r : values()) {
      if (r.label.equals(wanted)) {
        return r;
      }
    }
    throw new IllegalArgumentException("unknown segment roll '" + label + "': expected one of "
        + Arrays.stream(values()).map(SegmentRoll::label).collect(Collectors.joining(", ")));
  }

  @Override
  public String toString() {
    return label;
  }
}
