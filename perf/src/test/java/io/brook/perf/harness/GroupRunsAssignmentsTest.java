package io.brook.perf.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The rebalance workload's end: the members' listeners together hold every partition, each some and none
 * twice, through an eager (classic) and an incremental (KIP-848) rebalance.
 */
class GroupRunsAssignmentsTest {
  private static final AtomicReference<Throwable> NO_ERROR = new AtomicReference<>();

  private static long soon() {
    return System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
  }

  @Test
  void eagerRebalanceEndsWhenTheThirdMemberHoldsItsShare() throws Exception {
    GroupRuns.Assignments a = new GroupRuns.Assignments(6);
    a.set(0, Set.of(0, 1, 2));
    a.set(1, Set.of(3, 4, 5));
    long two = a.await(2, soon(), NO_ERROR);
    a.set(0, Set.of()); // the third member joined: everyone revokes everything
    a.set(1, Set.of());
    a.set(0, Set.of(0, 1));
    a.set(1, Set.of(2, 3));
    assertThatThrownBy(() -> a.await(3, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50), NO_ERROR))
        .isInstanceOf(TimeoutException.class);
    a.set(2, Set.of(4, 5));
    long three = a.await(3, soon(), NO_ERROR);
    assertThat(three).isGreaterThan(two);
    a.set(1, Set.of(2, 3)); // a later listener call with the same assignment keeps the first time
    assertThat(a.await(3, soon(), NO_ERROR)).isEqualTo(three);
  }

  @Test
  void incrementalRebalanceIsNotDoneWhileAPartitionIsHeldTwice() throws Exception {
    GroupRuns.Assignments a = new GroupRuns.Assignments(6);
    a.set(0, Set.of(0, 1, 2));
    a.set(1, Set.of(3, 4, 5));
    a.await(2, soon(), NO_ERROR);
    a.set(2, Set.of(2, 5)); // assigned before the old owners revoked (what a broker must never do)
    assertThatThrownBy(() -> a.await(3, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50), NO_ERROR))
        .isInstanceOf(TimeoutException.class).hasMessageContaining("did not share the 6 partitions");
    a.set(0, Set.of(0, 1));
    a.set(1, Set.of(3, 4));
    a.await(3, soon(), NO_ERROR);
  }

  @Test
  void aMemberErrorEndsTheWait() {
    GroupRuns.Assignments a = new GroupRuns.Assignments(2);
    AtomicReference<Throwable> error = new AtomicReference<>(new IllegalStateException("FIND_COORDINATOR"));
    assertThatThrownBy(() -> a.await(2, soon(), error)).hasMessageContaining("FIND_COORDINATOR");
  }
}
