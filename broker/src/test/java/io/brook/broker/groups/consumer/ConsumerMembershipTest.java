package io.brook.broker.groups.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.groups.MemberFault;
import io.brook.broker.groups.MemberFaultException;
import io.brook.broker.groups.TopicPartition;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The KIP-848 engine under a clock the test moves (FakeHost): joins, revocation, epochs, timeouts, static members. */
class ConsumerMembershipTest {
  private static final int REBALANCE_MS = 10_000;
  private static final long SESSION_MS = 6_000;
  private FakeHost host;
  private ConsumerMembership group;

  @BeforeEach
  void setUp() {
    host = new FakeHost();
    host.topics.put("orders", 4);
    group = new ConsumerMembership(host, new ConsumerSettings(500, SESSION_MS));
  }

  private HeartbeatAnswer join(String member, String instance, String assignor, List<String> topics) {
    return group.heartbeat(new ConsumerHeartbeat("billing", member, 0, instance, null, REBALANCE_MS, topics, null,
        assignor, List.of(), "client-" + member, "127.0.0.1", null));
  }

  private HeartbeatAnswer join(String member) {
    return join(member, null, null, List.of("orders"));
  }

  /** A heartbeat that names what the member owns now. */
  private HeartbeatAnswer beat(String member, int epoch, Set<TopicPartition> owned) {
    return group.heartbeat(new ConsumerHeartbeat("billing", member, epoch, null, null, -1, null, null, null,
        owned == null ? null : byId(owned), null, null, null));
  }

  private static List<TopicPartitions> byId(Set<TopicPartition> tps) {
    Map<String, List<Integer>> m = new java.util.TreeMap<>();
    tps.forEach(tp -> m.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition()));
    List<TopicPartitions> out = new ArrayList<>();
    m.forEach((t, ps) -> out.add(new TopicPartitions(FakeHost.id(t), ps)));
    return out;
  }

  private Set<TopicPartition> names(List<TopicPartitions> byId) {
    Set<TopicPartition> out = new TreeSet<>();
    byId.forEach(t -> t.partitions().forEach(p -> out.add(new TopicPartition(host.topicName(t.topicId()).get(), p))));
    return out;
  }

  private static TopicPartition orders(int p) {
    return new TopicPartition("orders", p);
  }

  /** No partition is ever with two members: what each was told it may consume, plus what it is giving up. */
  private void assertNoPartitionHeldTwice() {
    List<TopicPartition> held = new ArrayList<>();
    group.describe().members().forEach(m -> m.assignment().forEach(t -> t.partitions().forEach(p ->
        held.add(new TopicPartition(t.name(), p)))));
    assertThat(held).doesNotHaveDuplicates();
    assertThat(new HashSet<>(held)).isSubsetOf(group.owners().keySet());
  }

  private static void assertFault(MemberFault fault, ThrowingCallable call) {
    assertThatThrownBy(call).isInstanceOf(MemberFaultException.class)
        .satisfies(e -> assertThat(((MemberFaultException) e).fault()).isEqualTo(fault));
  }

  @Test
  void theFirstMemberGetsEveryPartitionAtANewJournaledEpoch() {
    HeartbeatAnswer a = join("m1");
    assertThat(a.fault()).isNull();
    assertThat(a.memberEpoch()).isEqualTo(1);
    assertThat(host.generation).isEqualTo(1);
    assertThat(a.heartbeatIntervalMs()).isEqualTo(500);
    assertThat(names(a.assignment())).containsExactly(orders(0), orders(1), orders(2), orders(3));
    assertThat(group.kafkaState()).isEqualTo("Stable");
    // Nothing changed: the next answer carries no assignment.
    assertThat(beat("m1", 1, null).assignment()).isNull();
  }

  @Test
  void aSecondMemberGetsPartitionsOnlyAfterTheFirstGaveThemUp() {
    join("m1");
    HeartbeatAnswer second = join("m2");
    assertThat(second.memberEpoch()).isEqualTo(2);
    assertThat(second.assignment()).isEmpty(); // all four still with m1
    assertThat(group.kafkaState()).isEqualTo("Reconciling");
    assertNoPartitionHeldTwice();

    HeartbeatAnswer revoke = beat("m1", 1, Set.of(orders(0), orders(1), orders(2), orders(3)));
    assertThat(revoke.memberEpoch()).isEqualTo(1); // its epoch waits for the revocation
    Set<TopicPartition> kept = names(revoke.assignment());
    assertThat(kept).hasSize(2);
    assertThat(beat("m2", 2, Set.of()).assignment()).isNull(); // m1 still owns them
    assertNoPartitionHeldTwice();

    HeartbeatAnswer revoked = beat("m1", 1, kept);
    assertThat(revoked.memberEpoch()).isEqualTo(2);
    HeartbeatAnswer got = beat("m2", 2, Set.of());
    Set<TopicPartition> its = names(got.assignment());
    assertThat(its).hasSize(2).doesNotContainAnyElementsOf(kept);
    assertThat(group.kafkaState()).isEqualTo("Stable");
    assertNoPartitionHeldTwice();
  }

  @Test
  void aHeartbeatWhoseAnswerWasLostIsTakenAtThePreviousEpochWhenItOwnsNoMoreThanItsAssignment() {
    join("m1");
    join("m2");
    Set<TopicPartition> kept = names(beat("m1", 1, Set.of(orders(0), orders(1), orders(2), orders(3))).assignment());
    beat("m1", 1, kept); // moves m1 to epoch 2; say this answer never reached it
    HeartbeatAnswer retried = group.heartbeat(new ConsumerHeartbeat("billing", "m1", 1, null, null, REBALANCE_MS,
        List.of("orders"), null, null, byId(kept), null, null, null));
    assertThat(retried.memberEpoch()).isEqualTo(2);
    assertThat(names(retried.assignment())).isEqualTo(kept); // a full request: the assignment again
    assertFault(MemberFault.FENCED_MEMBER_EPOCH, () -> beat("m1", 1, Set.of(orders(0), orders(1), orders(2), orders(3))));
    assertFault(MemberFault.FENCED_MEMBER_EPOCH, () -> beat("m1", 1, null));
    assertFault(MemberFault.FENCED_MEMBER_EPOCH, () -> beat("m1", 7, kept));
    assertFault(MemberFault.UNKNOWN_MEMBER_ID, () -> beat("nobody", 2, Set.of()));
  }

  @Test
  void aLeavingMembersPartitionsGoToTheOthersAtANewEpoch() {
    join("m1");
    join("m2");
    Set<TopicPartition> kept = names(beat("m1", 1, Set.of(orders(0), orders(1), orders(2), orders(3))).assignment());
    beat("m1", 1, kept);
    beat("m2", 2, Set.of());
    HeartbeatAnswer left = beat("m1", -1, null);
    assertThat(left.memberEpoch()).isEqualTo(-1);
    assertThat(left.heartbeatIntervalMs()).isZero();
    assertThat(host.generation).isEqualTo(3);
    HeartbeatAnswer all = beat("m2", 2, null);
    assertThat(all.memberEpoch()).isEqualTo(3);
    assertThat(names(all.assignment())).hasSize(4);
    assertFault(MemberFault.UNKNOWN_MEMBER_ID, () -> beat("m1", 2, kept));
  }

  @Test
  void aSilentMemberIsRemovedAfterItsSessionAndTheLastOneEmptiesTheGroup() {
    join("m1");
    join("m2");
    host.now += SESSION_MS - 1;
    beat("m2", 2, Set.of());
    group.tick(host.now);
    assertThat(group.memberCount()).isEqualTo(2);
    host.now += 2;
    group.tick(host.now);
    assertThat(group.memberCount()).isEqualTo(1); // m1 is gone: its partitions are free
    HeartbeatAnswer m2 = beat("m2", 2, Set.of());
    assertThat(m2.memberEpoch()).isEqualTo(3);
    assertThat(names(m2.assignment())).hasSize(4);
    host.now += SESSION_MS + 1;
    group.tick(host.now);
    assertThat(group.memberCount()).isZero();
    assertThat(group.kafkaState()).isEqualTo("Empty");
    assertThat(host.emptied).isEqualTo(1);
  }

  @Test
  void aMemberThatDoesNotRevokeWithinItsRebalanceTimeoutIsFencedAndItsPartitionsMove() {
    join("m1");
    join("m2");
    beat("m1", 1, Set.of(orders(0), orders(1), orders(2), orders(3))); // told to give two up; it never does
    for (int i = 0; i < 3; i++) { // it keeps heartbeating, so its session does not end
      host.now += REBALANCE_MS / 3 + 1;
      beat("m1", 1, null);
      beat("m2", 2, Set.of());
      group.tick(host.now);
    }
    assertThat(group.memberCount()).isEqualTo(1);
    assertFault(MemberFault.UNKNOWN_MEMBER_ID, () -> beat("m1", 1, null));
    assertThat(names(beat("m2", 2, Set.of()).assignment())).hasSize(4);
  }

  @Test
  void aStaticMemberThatLeftForAWhileGetsItsAssignmentBackWithoutANewEpoch() {
    join("a1", "i-a", null, List.of("orders"));
    HeartbeatAnswer b = join("b1", "i-b", null, List.of("orders"));
    Set<TopicPartition> aKept = names(beat("a1", 1, Set.of(orders(0), orders(1), orders(2), orders(3))).assignment());
    beat("a1", 1, aKept);
    beat("b1", b.memberEpoch(), Set.of());
    int epoch = host.generation;
    assertThat(beat("a1", -2, null).memberEpoch()).isEqualTo(-2);
    assertThat(group.memberCount()).isEqualTo(2); // it is still there, holding its partitions
    assertFault(MemberFault.UNRELEASED_INSTANCE_ID, () -> join("b2", "i-b", null, List.of("orders")));
    HeartbeatAnswer back = join("a2", "i-a", null, List.of("orders"));
    assertThat(host.generation).isEqualTo(epoch); // no rebalance
    assertThat(back.memberEpoch()).isEqualTo(epoch);
    assertThat(names(back.assignment())).isEqualTo(aKept);
    assertThat(group.describe().members()).extracting(ConsumerGroupDescription.Member::memberId)
        .containsExactlyInAnyOrder("a2", "b1");
  }

  @Test
  void commitsAreCheckedAgainstTheMemberEpoch() {
    join("m1");
    group.checkCommit("m1", null, 1, null);
    assertFault(MemberFault.STALE_MEMBER_EPOCH, () -> group.checkCommit("m1", null, 0, null));
    assertFault(MemberFault.STALE_MEMBER_EPOCH, () -> group.checkCommit("m1", null, 2, null)); // as Kafka 4.3 answers
    assertFault(MemberFault.UNKNOWN_MEMBER_ID, () -> group.checkCommit("m9", null, 1, null));
  }

  @Test
  void aMemberOfAnotherPrincipalCannotActAsIt() {
    group.heartbeat(new ConsumerHeartbeat("billing", "m1", 0, null, null, REBALANCE_MS, List.of("orders"), null, null,
        List.of(), "c", "h", "alice"));
    group.checkCommit("m1", null, 1, "alice");
    assertFault(MemberFault.GROUP_AUTHORIZATION_FAILED, () -> group.checkCommit("m1", null, 1, "mallory"));
    assertFault(MemberFault.GROUP_AUTHORIZATION_FAILED, () -> group.heartbeat(new ConsumerHeartbeat("billing", "m1", 1,
        null, null, -1, null, null, null, null, "c", "h", "mallory")));
  }

  @Test
  void rangeIsUsedWhenMembersAskForItAndAnUnknownAssignorIsRefused() {
    join("m1", null, "range", List.of("orders"));
    assertThat(group.protocolName()).isEqualTo("range");
    assertThat(group.describe().assignor()).isEqualTo("range");
    assertFault(MemberFault.UNSUPPORTED_ASSIGNOR, () -> join("m2", null, "sticky", List.of("orders")));
    assertThat(group.memberCount()).isEqualTo(1);
  }

  @Test
  void aRegexSubscriptionTakesTopicsCreatedLaterAndABadOneIsRefused() {
    HeartbeatAnswer a = group.heartbeat(new ConsumerHeartbeat("billing", "m1", 0, null, null, REBALANCE_MS, null,
        "ord.*", null, List.of(), "c", "h", null));
    assertThat(names(a.assignment())).hasSize(4);
    host.topics.put("ordinals", 2);
    host.now += ConsumerMembership.TOPIC_CHECK_INTERVAL_MS;
    group.tick(host.now);
    HeartbeatAnswer more = beat("m1", 1, names(a.assignment()));
    assertThat(more.memberEpoch()).isEqualTo(2);
    assertThat(names(more.assignment())).hasSize(6);
    assertThat(group.subscribedTopics()).containsExactly("orders", "ordinals");
    assertFault(MemberFault.INVALID_REGULAR_EXPRESSION, () -> group.heartbeat(new ConsumerHeartbeat("billing", "m2", 0,
        null, null, REBALANCE_MS, null, "ord(", null, List.of(), "c", "h", null)));
  }

  @Test
  void aRegexMatchesOnlyTheTopicsTheMembersPrincipalMaySee() {
    host.topics.put("secret", 2);
    HeartbeatAnswer a = group.heartbeat(new ConsumerHeartbeat("billing", "m1", 0, null, null, REBALANCE_MS, null,
        ".*", null, List.of(), "c", "h", "eve", t -> !t.equals("secret")));
    assertThat(names(a.assignment())).hasSize(4).allSatisfy(tp -> assertThat(tp.topic()).isEqualTo("orders"));
    assertThat(group.subscribedTopics()).containsExactly("orders");
  }

  @Test
  void aStaticMembersSlotIsTakenBackOnlyByItsOwnPrincipal() {
    group.heartbeat(new ConsumerHeartbeat("billing", "m1", 0, "i1", null, REBALANCE_MS, List.of("orders"), null, null,
        List.of(), "c", "h", "alice"));
    group.heartbeat(new ConsumerHeartbeat("billing", "m1", ConsumerMember.LEFT_STATIC, "i1", null, -1, null, null,
        null, null, "c", "h", "alice"));
    assertFault(MemberFault.GROUP_AUTHORIZATION_FAILED, () -> group.heartbeat(new ConsumerHeartbeat("billing", "m2", 0,
        "i1", null, REBALANCE_MS, List.of("orders"), null, null, List.of(), "c", "h", "mallory")));
    HeartbeatAnswer back = group.heartbeat(new ConsumerHeartbeat("billing", "m3", 0, "i1", null, REBALANCE_MS,
        List.of("orders"), null, null, List.of(), "c", "h", "alice"));
    assertThat(names(back.assignment())).hasSize(4);
  }

  @Test
  void partitionsAddedToASubscribedTopicAreAssignedAtANewEpoch() {
    HeartbeatAnswer a = join("m1");
    host.topics.put("orders", 6);
    host.now += ConsumerMembership.TOPIC_CHECK_INTERVAL_MS;
    group.tick(host.now);
    HeartbeatAnswer more = beat("m1", 1, names(a.assignment()));
    assertThat(more.memberEpoch()).isEqualTo(2);
    assertThat(names(more.assignment())).hasSize(6);
  }

  @Test
  void aJoinWhoseEpochCannotBeJournaledIsRefusedRetriablyAndTheTickCatchesUp() {
    join("m1");
    host.diskFull = true;
    assertFault(MemberFault.COORDINATOR_NOT_AVAILABLE, () -> join("m2"));
    assertThat(group.memberCount()).isEqualTo(1);
    beat("m1", 1, null).memberEpoch();
    assertThat(beat("m1", -1, null).memberEpoch()).isEqualTo(-1);
    assertThat(host.generation).isEqualTo(1);
  }

  @Test
  void afterCloseHeartbeatsAreAnsweredCoordinatorNotAvailable() {
    join("m1");
    group.close("stopping");
    assertFault(MemberFault.COORDINATOR_NOT_AVAILABLE, () -> beat("m1", 1, null));
  }

  @Test
  void aCommitWithAnOlderEpochIsTakenForPartitionsTheMemberHadThenAsKafkaTakesIt() {
    int first = join("a").memberEpoch();
    Set<TopicPartition> all = Set.of(orders(0), orders(1), orders(2), orders(3));
    join("b"); // a's epoch moves on while it keeps two of its four partitions
    Set<TopicPartition> kept = names(beat("a", first, all).assignment());
    HeartbeatAnswer moved = beat("a", first, kept);
    assertThat(moved.memberEpoch()).isGreaterThan(first);

    // a commitSync built before that heartbeat's answer arrived: taken for what it still has
    group.checkCommit("a", null, first, null, kept);
    group.checkCommit("a", null, moved.memberEpoch(), null, kept);
    Set<TopicPartition> given = new HashSet<>(all);
    given.removeAll(kept);
    assertFault(MemberFault.STALE_MEMBER_EPOCH, () -> group.checkCommit("a", null, first, null, given));
    assertFault(MemberFault.STALE_MEMBER_EPOCH, () -> group.checkCommit("a", null, moved.memberEpoch() + 1, null,
        kept));
    // an OffsetFetch (no partitions named) needs the member's own epoch
    assertFault(MemberFault.STALE_MEMBER_EPOCH, () -> group.checkCommit("a", null, first, null));
  }
}
