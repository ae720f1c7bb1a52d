package io.brook.broker.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.delivery.AckPartition.Check;
import org.junit.jupiter.api.Test;

/** The lease window without a broker: states, the start advancing, expiry, replay and snapshot. */
class AckPartitionTest {
  final AckMember a = member("a");
  final AckMember b = member("b");

  static AckMember member(String id) {
    AckMember m = new AckMember(id, false, null);
    m.connect(new CollectingSink(d -> { }), java.util.Set.of("t"), "", 0);
    m.flowControl(100, 1 << 20);
    return m;
  }

  @Test
  void theStartAdvancesOnlyPastSettledOffsets() {
    AckPartition p = new AckPartition(null, 0, 10);
    for (long o = 10; o < 15; o++) {
      assertThat(p.leaseNew(o, 3, o % 2 == 0 ? a : b, 1000)).isEqualTo(1);
    }
    assertThat(a.leasedRecords()).isEqualTo(3);
    assertThat(p.check(11, a)).isEqualTo(Check.NOT_LEASED);
    assertThat(p.check(15, a)).isEqualTo(Check.NOT_DELIVERED);
    p.settle(11);
    assertThat(p.start()).isEqualTo(10);
    p.settle(10);
    assertThat(p.start()).isEqualTo(12); // 10 and 11 settled
    assertThat(p.check(10, a)).isEqualTo(Check.ALREADY_SETTLED);
    assertThat(p.unsettled()).isEqualTo(3);
    assertThat(a.leasedRecords()).isEqualTo(2);
  }

  @Test
  void expiredLeasesAreDueAgainAndTheOldHolderIsToldItsLeaseExpired() {
    AckPartition p = new AckPartition(null, 0, 0);
    p.leaseNew(0, 1, a, 100);
    p.leaseNew(1, 1, a, 500);
    assertThat(p.expire(200)).isEqualTo(1);
    assertThat(p.check(0, a)).isEqualTo(Check.LEASE_EXPIRED);
    assertThat(p.nextDue(0, 200)).isEqualTo(0);
    assertThat(p.leaseAgain(0, 1, b, 900)).isEqualTo(2);
    assertThat(p.check(0, a)).isEqualTo(Check.NOT_LEASED);
    assertThat(p.check(0, b)).isEqualTo(Check.OK);
    p.release(1, 700); // a nack with a delay
    assertThat(p.nextDue(0, 600)).isEqualTo(-1);
    assertThat(p.nextDue(0, 700)).isEqualTo(1);
    assertThat(p.nextDeadline()).isEqualTo(700);
  }

  @Test
  void theWindowGrowsBeyondItsFirstCapacityAndWrapsAround() {
    AckPartition p = new AckPartition(null, 0, 0);
    for (long o = 0; o < 40; o++) {
      p.leaseNew(o, 1, a, 1000);
      if (o >= 5) {
        p.settle(o - 5);
      }
    }
    assertThat(p.start()).isEqualTo(35);
    assertThat(p.unsettled()).isEqualTo(5);
    assertThat(p.roomForNew(5)).isFalse();
    assertThat(p.roomForNew(6)).isTrue();
    for (long o = 40; o < 100; o++) {
      p.leaseNew(o, 1, a, 1000);
    }
    assertThat(p.check(99, a)).isEqualTo(Check.OK);
    assertThat(p.unsettled()).isEqualTo(65);
  }

  @Test
  void replayedDeliveriesAndSettlesRebuildAttemptsAndTheSnapshotKeepsThem() {
    AckPartition p = new AckPartition(null, 0, 5);
    p.replayDelivered(5, 9);
    p.replayDelivered(7, 7);
    p.replaySettled(5, 5);
    p.replaySettled(8, 8);
    assertThat(p.start()).isEqualTo(6);
    assertThat(p.next()).isEqualTo(10);
    assertThat(p.attempts(7)).isEqualTo(2);
    assertThat(p.unsettled()).isEqualTo(3);
    assertThat(p.nextDue(0, 0)).isEqualTo(6); // after a restart everything unsettled is due at once

    AckPartition copy = new AckPartition(null, 0, 0);
    copy.replayWindow(p.start(), p.next(), p.snapshot());
    assertThat(copy.snapshot()).containsExactly(p.snapshot());
    assertThat(copy.start()).isEqualTo(6);
    assertThat(copy.check(8, a)).isEqualTo(Check.ALREADY_SETTLED);
    assertThat(copy.attempts(7)).isEqualTo(2);
  }

  @Test
  void recordsDeletedByRetentionAreSettledCountedAndTheirLeasesHandedBack() {
    AckPartition p = new AckPartition(null, 0, 0);
    for (long o = 0; o < 6; o++) {
      p.leaseNew(o, 1, a, 1000);
    }
    p.settle(1);
    Ranges settled = new Ranges();
    assertThat(p.dropBelow(4, settled)).as("no offset skipped beyond the window").isFalse();
    assertThat(settled.toArray()).containsExactly(0, 0, 2, 3);
    assertThat(p.start()).isEqualTo(4);
    assertThat(p.deletedUnsettled()).isEqualTo(3);
    assertThat(a.leasedRecords()).isEqualTo(2);
    assertThat(p.check(2, a)).isEqualTo(Check.ALREADY_SETTLED);
    // Past the window: the offsets never delivered count too, and the window starts over.
    assertThat(p.dropBelow(10, new Ranges())).isTrue();
    assertThat(p.start()).isEqualTo(10);
    assertThat(p.next()).isEqualTo(10);
    assertThat(p.deletedUnsettled()).isEqualTo(3 + 2 + 4);
    assertThat(a.leasedRecords()).isZero();
    assertThat(p.unsettled()).isZero();
  }

  @Test
  void aDeliveryTakenBackDoesNotCountAndKeepsItsLease() {
    AckPartition p = new AckPartition(null, 0, 0);
    p.leaseNew(0, 4, a, 1000);
    p.leaseNew(1, 4, a, 1000);
    assertThat(p.undeliver(0, b, 1)).as("another member's lease").isFalse();
    assertThat(p.undeliver(0, a, 2)).as("not that delivery").isFalse();
    assertThat(p.undeliver(0, a, 1)).isTrue();
    assertThat(p.attempts(0)).isZero();
    assertThat(p.check(0, a)).as("still a's until it runs out or a's stream hands it back").isEqualTo(Check.OK);
    p.releaseAll(a, 50);
    assertThat(p.nextDue(0, 50)).isEqualTo(0);
    assertThat(p.leaseAgain(0, 4, b, 2000)).as("delivered again as the first attempt").isEqualTo(1);
    p.releaseAll(b, 60);
    assertThat(p.leaseAgain(0, 4, b, 3000)).isEqualTo(2);
    assertThat(p.redeliveries()).isEqualTo(2);
    assertThat(p.undeliver(0, b, 2)).isTrue();
    assertThat(p.redeliveries()).as("a redelivery taken back is none").isEqualTo(1);

    p.expire(5000);
    assertThat(p.undeliver(1, a, 1)).as("a lease that ran out was outlived: it counts").isFalse();
    assertThat(p.attempts(1)).isEqualTo(1);
  }

  @Test
  void replayTakesBackWhatWasUndelivered() {
    AckPartition p = new AckPartition(null, 0, 0);
    p.replayDelivered(0, 3);
    p.replayDelivered(2, 3);
    p.replayUndelivered(3, 3);
    p.replaySettled(1, 1);
    p.replayUndelivered(1, 1); // settled: stays as it was
    assertThat(new int[] {p.attempts(0), p.attempts(2), p.attempts(3)}).containsExactly(1, 2, 1);
    assertThat(p.snapshot()).containsExactly(1, -2, 2, 1);
  }
}
