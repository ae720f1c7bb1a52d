package io.brook.client.ack;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.protocol.v1.OffsetRange;
import io.brook.protocol.v1.ReceiveRequest;
import org.junit.jupiter.api.Test;

class PendingSettlesTest {
  static String text(OffsetRange r) {
    return r.getTopic() + "-" + r.getPartition() + ":" + r.getFirstOffset()
        + (r.hasLastOffset() ? ".." + r.getLastOffset() : "");
  }

  @Test
  void consecutiveOffsetsOfAPartitionBecomeOneRangeInAnyOrder() {
    PendingSettles p = new PendingSettles();
    for (long o : new long[] {3, 1, 2, 7, 5, 6, 10}) {
      p.add("t", 0, o, PendingSettles.Kind.ACK, 0);
    }
    p.add("t", 1, 4, PendingSettles.Kind.ACK, 0);
    assertThat(p.add("t", 1, 4, PendingSettles.Kind.ACK, 0)).as("the same ack twice counts once").isEqualTo(8);
    ReceiveRequest r = p.drain().toReceiveRequest();
    assertThat(r.getAcksList()).extracting(PendingSettlesTest::text)
        .containsExactly("t-0:1..3", "t-0:5..7", "t-0:10", "t-1:4");
    assertThat(p.size()).isZero();
    assertThat(p.drain().isEmpty()).isTrue();
  }

  @Test
  void nacksRejectsAndExtensionsKeepTheirDelayOrLease() {
    PendingSettles p = new PendingSettles();
    p.add("t", 0, 1, PendingSettles.Kind.NACK, 0);
    p.add("t", 0, 2, PendingSettles.Kind.NACK, 0);
    p.add("t", 0, 3, PendingSettles.Kind.NACK, 500);
    p.add("t", 0, 4, PendingSettles.Kind.REJECT, 0);
    p.add("t", 0, 5, PendingSettles.Kind.EXTEND, 60_000);
    ReceiveRequest r = p.drain().toReceiveRequest();
    assertThat(r.getAcksCount()).isZero();
    assertThat(r.getNacksList()).extracting(n -> text(n.getRange()) + " delay " + n.getDelayMs() + " reject "
        + n.getReject()).containsExactly("t-0:1..2 delay 0 reject false", "t-0:3 delay 500 reject false",
            "t-0:4 delay 0 reject true");
    assertThat(r.getExtensionsList()).singleElement().satisfies(e -> {
      assertThat(text(e.getRange())).isEqualTo("t-0:5");
      assertThat(e.getLeaseMs()).isEqualTo(60_000);
    });
  }

  @Test
  void aBatchThatCouldNotBeSentComesBack() {
    PendingSettles p = new PendingSettles();
    p.add("t", 0, 1, PendingSettles.Kind.ACK, 0);
    PendingSettles.Batch b = p.drain();
    p.add("t", 0, 2, PendingSettles.Kind.ACK, 0);
    p.restore(b);
    assertThat(p.size()).isEqualTo(2);
    assertThat(p.drain().toSettleRequest("g", "m").getAcksList()).extracting(PendingSettlesTest::text)
        .containsExactly("t-0:1..2");
  }

  @Test
  void rangesStayWithinTheBrokersWidthLimit() {
    PendingSettles p = new PendingSettles();
    for (long o = 0; o < PendingSettles.MAX_RANGE + 5; o++) {
      p.add("t", 0, o, PendingSettles.Kind.ACK, 0);
    }
    assertThat(p.drain().ranges()).extracting(PendingSettlesTest::text)
        .containsExactly("t-0:0..999999", "t-0:1000000..1000004");
  }
}
