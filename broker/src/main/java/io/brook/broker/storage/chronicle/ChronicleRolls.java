package io.brook.broker.storage.chronicle;

import io.brook.broker.storage.SegmentRoll;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.RollCycles;
import net.openhft.chronicle.queue.rollcycles.TestRollCycles;

/**
 * The Chronicle roll cycle of each {@link SegmentRoll}. The cycle's file name format is part of the
 * on-disk format (segment files are named by it): these never change for an existing roll.
 */
public final class ChronicleRolls {
  private ChronicleRolls() {}

  public static RollCycle of(SegmentRoll roll) {
    return switch (roll) {
      case ONE_SECOND -> TestRollCycles.TEST_SECONDLY;
      case FIVE_MINUTES -> RollCycles.FIVE_MINUTELY;
      case TEN_MINUTES -> RollCycles.TEN_MINUTELY;
      case TWENTY_MINUTES -> RollCycles.TWENTY_MINUTELY;
      case HALF_HOUR -> RollCycles.HALF_HOURLY;
      case HOUR -> RollCycles.FAST_HOURLY;
      case TWO_HOURS -> RollCycles.TWO_HOURLY;
      case FOUR_HOURS -> RollCycles.FOUR_HOURLY;
      case SIX_HOURS -> RollCycles.SIX_HOURLY;
      case DAY -> RollCycles.FAST_DAILY;
      case WEEK -> RollCycles.WEEKLY;
    };
  }

  /** The label of the roll a queue was created with, or Chronicle's name for a cycle Brook never uses. */
  static String label(RollCycle cycle) {
    for (SegmentRoll r : SegmentRoll.values()) {
      RollCycle c = of(r);
      if (c.format().equals(cycle.format()) && c.lengthInMillis() == cycle.lengthInMillis()) {
        return r.label();
      }
    }
    return cycle.toString();
  }
}
