package io.brook.broker.storage.chronicle;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.storage.SegmentRoll;
import org.junit.jupiter.api.Test;

/** SegmentRoll names its length without Chronicle; the engine's roll cycle must agree with it. */
class ChronicleRollsTest {
  @Test
  void everyRollHasTheChronicleCycleOfItsLengthAndIsKnownByItsLabel() {
    for (SegmentRoll roll : SegmentRoll.values()) {
      assertThat(ChronicleRolls.of(roll).lengthInMillis()).as(roll.label()).isEqualTo(roll.lengthMillis());
      assertThat(ChronicleRolls.label(ChronicleRolls.of(roll))).isEqualTo(roll.label());
    }
  }
}
