package io.brook.broker.topics;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.storage.SegmentInfo;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which segments a retention pass deletes: oldest first, by time or size, never the last. */
class RetentionDecisionTest {
  static final long NOW = 1_000_000;

  /** Segments of 100 bytes each, the i-th last appended at {@code appendTimes[i]}. */
  static List<SegmentInfo> segments(long... appendTimes) {
    List<SegmentInfo> out = new ArrayList<>();
    for (int i = 0; i < appendTimes.length; i++) {
      out.add(new SegmentInfo(10L * i, 10L * i + 10, 100, appendTimes[i]));
    }
    return out;
  }

  @Test
  void byTimeDeletesTheExpiredPrefixButNeverTheSegmentBeingWritten() {
    Retention.Decision d = Retention.decide(segments(100, 200, 900_000, 300), 500_000, -1, NOW);
    assertThat(d.count()).as("stops at the first young segment, even if an older-looking one follows").isEqualTo(2);
    assertThat(d.reason()).isEqualTo("retention.ms=500000");
    assertThat(Retention.decide(segments(1, 2, 3), 0, -1, NOW).count()).isEqualTo(2);
    assertThat(Retention.decide(segments(1, 2, 3), -1, -1, NOW).count()).as("-1: forever").isZero();
  }

  @Test
  void bySizeKeepsAtLeastTheLimit() {
    assertThat(Retention.decide(segments(NOW, NOW, NOW, NOW, NOW), -1, 250, NOW).count()).isEqualTo(2); // 300 kept
    assertThat(Retention.decide(segments(NOW, NOW, NOW, NOW, NOW), -1, 300, NOW).count()).isEqualTo(2);
    assertThat(Retention.decide(segments(NOW, NOW, NOW, NOW, NOW), -1, 301, NOW).count()).isEqualTo(1);
    assertThat(Retention.decide(segments(NOW, NOW), -1, 0, NOW).count()).isEqualTo(1);
  }

  @Test
  void eitherLimitDeletesAndTheReasonNamesWhichApplied() {
    Retention.Decision d = Retention.decide(segments(1, NOW, NOW, NOW), 500_000, 150, NOW);
    assertThat(d.count()).isEqualTo(2);
    assertThat(d.reason()).isEqualTo("retention.ms=500000, retention.bytes=150");
  }
}
