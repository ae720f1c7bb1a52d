package io.brook.broker.groups;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A share partition's lag: what is not settled from the window's start to the log end (D67). */
class ShareOffsetsTest {
  @Test
  void lagCountsUnsettledRecordsInTheWindowAndEveryRecordNotDeliveredYet() {
    assertThat(ShareOffsets.lag(3, 5, 2, 5)).isEqualTo(2); // 3 and 4 leased, nothing after
    assertThat(ShareOffsets.lag(1, 5, 3, 5)).isEqualTo(3); // 1, 2, 4 unsettled; 3 settled
    assertThat(ShareOffsets.lag(1, 1, 0, 5)).isEqualTo(4); // a fresh window: nothing delivered
    assertThat(ShareOffsets.lag(5, 5, 0, 5)).isZero();
    assertThat(ShareOffsets.lag(2, 4, 1, 10)).isEqualTo(7); // one in the window, 4-9 not delivered
  }
}
