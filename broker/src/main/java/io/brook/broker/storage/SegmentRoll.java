package io.brook.broker.storage;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How often a partition starts a new segment (a Chronicle roll cycle). Fixed when a partition is
 * created: Chronicle cannot change a queue's roll cycle later. Retention deletes whole segments, so
 * this is also retention's granularity. {@code 1s} exists for tests. The Chronicle roll cycle of each
 * is the engine's business (storage.chronicle.ChronicleRolls); its tests check both agree on the length.
 */
public enum SegmentRoll {
  ONE_SECOND("1s", Duration.ofSeconds(1)),
  FIVE_MINUTES("5m", Duration.ofMinutes(5)),
  TEN_MINUTES("10m", Duration.ofMinutes(10)),
  TWENTY_MINUTES("20m", Duration.ofMinutes(20)),
  HALF_HOUR("30m", Duration.ofMinutes(30)),
  HOUR("1h", Duration.ofHours(1)),
  TWO_HOURS("2h", Duration.ofHours(2)),
  FOUR_HOURS("4h", Duration.ofHours(4)),
  SIX_HOURS("6h", Duration.ofHours(6)),
  DAY("1d", Duration.ofDays(1)),
  WEEK("1w", Duration.ofDays(7));

  private final String label;
  private final long lengthMillis;

  SegmentRoll(String label, Duration length) {
    this.label = label;
    this.lengthMillis = length.toMillis();
  }

  public String label() {
    return label;
  }

  public long lengthMillis() {
    return lengthMillis;
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
