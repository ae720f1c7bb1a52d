package io.brook.broker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.protocol.v1.Nack;
import io.brook.protocol.v1.OffsetRange;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How consume --ack turns one batch's settlements into ranges. */
class SettlementTest {
  static String text(OffsetRange r) {
    return r.getTopic() + ":" + r.getPartition() + " " + r.getFirstOffset()
        + (r.hasLastOffset() ? ".." + r.getLastOffset() : "");
  }

  @Test
  void consecutiveOffsetsOfOnePartitionBecomeOneRange() {
    AckConsume.Settlement s = new AckConsume.Settlement();
    for (long o : new long[] {5, 6, 7, 9}) {
      s.ack("t", 0, o);
    }
    s.ack("t", 1, 10);
    s.ack("u", 1, 11);
    s.ack("u", 1, 12);

    assertThat(s.acks().stream().map(SettlementTest::text).toList())
        .containsExactly("t:0 5..7", "t:0 9", "t:1 10", "u:1 11..12");
    assertThat(s.nacks()).isEmpty();
  }

  @Test
  void nacksMergeOnlyWithTheSameDelay() {
    AckConsume.Settlement s = new AckConsume.Settlement();
    s.nack("t", 0, 1, 0);
    s.nack("t", 0, 2, 0);
    s.nack("t", 0, 3, 100);
    s.ack("t", 0, 4);
    s.nack("t", 0, 5, 100);

    List<Nack> nacks = s.nacks();
    assertThat(nacks.stream().map(n -> text(n.getRange()) + " +" + n.getDelayMs()).toList())
        .containsExactly("t:0 1..2 +0", "t:0 3 +100", "t:0 5 +100");
    assertThat(s.acks().stream().map(SettlementTest::text).toList()).containsExactly("t:0 4");
  }
}
