package io.brook.broker.groups;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A held heartbeat keeps its member alive while its call is open: the group's tick, which both
 * answers it and expires members, may run late (one timer thread for every group), and a member
 * whose heartbeat was waiting at the broker all that time must not be removed for it.
 */
class OffsetGroupHeldHeartbeatTest extends OffsetGroupTestBase {
  static final long SESSION_MS = 6_000;


  @Override
  Map<String, Integer> topicsToCreate() {
    return Map.of("t", 2);
  }

  @Test
  void aMemberWhoseHeartbeatIsHeldIsNotExpiredByALateTick() throws Exception {
    JoinResult joined = group.join(new JoinRequest("", "c", "127.0.0.1", List.of("t"),
        SESSION_MS, SESSION_MS, null)).get();
    CompletableFuture<Boolean> held = group.heartbeat(joined.memberId(), joined.generation(), 60_000, null);
    assertThat(held).as("held until its wait ends").isNotDone();

    nowMs.addAndGet(SESSION_MS + 2_000); // the tick comes late: past the session of the last heartbeat
    group.tick(nowMs.get());

    assertThat(held).as("answered once its wait ended").isCompletedWithValue(false);
    assertThat(group.memberCount()).as("the member, waiting at the broker all along, is still there").isEqualTo(1);

    nowMs.addAndGet(SESSION_MS + 1); // and no heartbeat since the answer: now its session has run out
    group.tick(nowMs.get());
    assertThat(group.memberCount()).isZero();
  }
}
