package io.brook.broker.outbound;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OutboundMemoryTest {
  private final List<String> granted = new ArrayList<>();

  private Runnable note(String who) {
    return () -> granted.add(who);
  }

  @Test
  void aClientOverItsShareWaitsWhileAnotherClientStillSends() {
    OutboundMemory m = new OutboundMemory(100, 30);
    OutboundMemory.Account hog = m.open();
    OutboundMemory.Account other = m.open();
    assertThat(hog.tryReserve(20)).isTrue();
    assertThat(hog.reserve(20, note("hog-2"))).as("over its 30").isNotNull();
    assertThat(other.reserve(20, note("other"))).as("its own share is untouched").isNull();
    assertThat(m.held()).isEqualTo(40);
    assertThat(m.waiting()).isEqualTo(1);

    hog.release(20);
    assertThat(granted).containsExactly("hog-2");
    assertThat(hog.held()).isEqualTo(20);
  }

  @Test
  void theBrokerWideBoundHoldsAndIsSharedInTurnAcrossClients() {
    OutboundMemory m = new OutboundMemory(60, 60);
    OutboundMemory.Account a = m.open();
    OutboundMemory.Account b = m.open();
    OutboundMemory.Account c = m.open();
    assertThat(a.tryReserve(60)).isTrue();
    a.reserve(20, note("a1"));
    a.reserve(20, note("a2"));
    a.reserve(20, note("a3"));
    b.reserve(20, note("b1"));
    c.reserve(20, note("c1"));
    assertThat(c.tryReserve(1)).as("nobody jumps the queue").isFalse();

    a.release(60);
    assertThat(granted).as("one each, in turn, as far as the bound allows").containsExactly("a1", "b1", "c1");
    assertThat(m.held()).isEqualTo(60);
    b.release(20);
    assertThat(granted).containsExactly("a1", "b1", "c1", "a2");
  }

  @Test
  void oneAnswerLargerThanEveryLimitGoesOutWhenNothingElseIsHeld() {
    OutboundMemory m = new OutboundMemory(10, 5);
    OutboundMemory.Account a = m.open();
    assertThat(a.tryReserve(50)).isTrue();
    assertThat(a.reserve(50, note("second"))).isNotNull();
    a.release(50);
    assertThat(granted).containsExactly("second");
  }

  @Test
  void aClosedConnectionFreesWhatItHeldAndItsWaitersAreDropped() {
    OutboundMemory m = new OutboundMemory(40, 40);
    OutboundMemory.Account gone = m.open();
    OutboundMemory.Account other = m.open();
    assertThat(gone.tryReserve(40)).isTrue();
    gone.reserve(10, note("gone"));
    other.reserve(30, note("other"));
    gone.close();
    assertThat(granted).containsExactly("other");
    assertThat(m.held()).isEqualTo(30);
    assertThat(m.accounts()).isEqualTo(1);
    gone.release(40); // late releases of a closed account change nothing
    assertThat(m.held()).isEqualTo(30);
  }

  @Test
  void aCancelledWaitLeavesTheQueueAndLetsTheNextOneIn() {
    OutboundMemory m = new OutboundMemory(30, 30);
    OutboundMemory.Account a = m.open();
    OutboundMemory.Account b = m.open();
    assertThat(a.tryReserve(20)).isTrue();
    OutboundMemory.Waiter big = b.reserve(25, note("big"));
    OutboundMemory.Account c = m.open();
    c.reserve(5, note("small"));
    assertThat(granted).as("small waits behind big: no overtaking").isEmpty();
    assertThat(big.cancel()).isTrue();
    assertThat(granted).containsExactly("small");
    assertThat(m.waiting()).isZero();
  }

  @Test
  void forcedBytesCountAndAZeroReservationWaitsForRoom() {
    OutboundMemory m = new OutboundMemory(100, 10);
    OutboundMemory.Account a = m.open();
    a.force(15);
    assertThat(m.held()).isEqualTo(15);
    assertThat(a.reserve(0, note("room"))).as("over its share: wait").isNotNull();
    a.release(5);
    assertThat(granted).containsExactly("room");
    assertThat(m.held()).isEqualTo(10);
  }
}
