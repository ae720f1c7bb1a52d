package io.brook.broker.groups.classic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.groups.GroupState;
import io.brook.broker.groups.MemberFault;
import io.brook.broker.groups.MemberFaultException;
import io.brook.broker.groups.TopicPartition;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/** The classic state machine under a clock the test moves: Kafka's JoinGroup/SyncGroup/Heartbeat/LeaveGroup rules. */
class ClassicMembershipTest {
  static final int SESSION_MS = 10_000;
  static final int REBALANCE_MS = 30_000;

  final FakeHost host = new FakeHost();
  ClassicMembership group = new ClassicMembership(host, 0);

  // --- joining ---

  @Test
  void aNewMemberFirstGetsAnIdThenJoinsWithIt() {
    JoinAnswer first = done(group.join(join("", null, true, "range")));
    assertThat(first.fault()).isEqualTo(MemberFault.MEMBER_ID_REQUIRED);
    assertThat(first.memberId()).startsWith("client-");
    assertThat(group.memberCount()).as("pending, not a member yet").isZero();

    JoinAnswer joined = done(group.join(join(first.memberId(), null, true, "range")));
    assertThat(joined.fault()).isNull();
    assertThat(joined.memberId()).isEqualTo(first.memberId());
    assertThat(joined.generation()).isEqualTo(1);
    assertThat(joined.leaderId()).isEqualTo(first.memberId());
    assertThat(joined.protocolType()).isEqualTo("consumer");
    assertThat(joined.protocolName()).isEqualTo("range");
    assertThat(joined.members()).extracting(JoinedMember::memberId).containsExactly(first.memberId());
    assertThat(new String(joined.members().get(0).metadata(), StandardCharsets.UTF_8)).isEqualTo("range-meta");
    assertThat(group.kafkaState()).isEqualTo("CompletingRebalance");
    assertThat(host.generation).as("journaled before it was answered").isEqualTo(1);
  }

  @Test
  void joinGroupBelowV4JoinsAtOnceWithoutMemberIdRequired() {
    JoinAnswer joined = done(group.join(join("", null, false, "range")));
    assertThat(joined.fault()).isNull();
    assertThat(group.memberCount()).isEqualTo(1);
  }

  @Test
  void aPendingMemberThatNeverComesBackExpiresAndStopsHoldingTheRebalance() {
    String a = stableAlone();
    JoinAnswer b = done(group.join(join("", null, true, "range")));
    assertThat(b.fault()).isEqualTo(MemberFault.MEMBER_ID_REQUIRED);

    CompletableFuture<JoinAnswer> aRejoin = group.join(join(a, null, true, "range"));
    assertThat(aRejoin).as("the rebalance waits for the pending member").isNotDone();

    host.nowMs += SESSION_MS + 1;
    group.tick(host.nowMs);
    assertThat(done(aRejoin).fault()).isNull();
    assertThat(done(aRejoin).generation()).isEqualTo(2);
    assertFault(() -> group.join(join(b.memberId(), null, true, "range")), MemberFault.UNKNOWN_MEMBER_ID);
  }

  @Test
  void theLeaderGetsEveryMembersMetadataAndFollowersWaitForItsAssignment() {
    String a = stableAlone();
    String b = newMemberId();
    CompletableFuture<JoinAnswer> bJoin = group.join(join(b, null, true, "range"));
    assertThat(bJoin).isNotDone();
    assertThat(group.kafkaState()).isEqualTo("PreparingRebalance");
    assertFault(() -> group.heartbeat(a, null, 1, null), MemberFault.REBALANCE_IN_PROGRESS);

    JoinAnswer aJoined = done(group.join(join(a, null, true, "range")));
    JoinAnswer bJoined = done(bJoin);
    assertThat(aJoined.generation()).isEqualTo(2).isEqualTo(bJoined.generation());
    assertThat(aJoined.leaderId()).as("the leader stays the leader").isEqualTo(a).isEqualTo(bJoined.leaderId());
    assertThat(aJoined.members()).extracting(JoinedMember::memberId).containsExactly(a, b);
    assertThat(bJoined.members()).as("only the leader gets the members").isEmpty();

    CompletableFuture<SyncAnswer> bSync = group.sync(sync(2, b, Map.of()));
    assertThat(bSync).as("parked until the leader's SyncGroup").isNotDone();
    group.heartbeat(b, null, 2, null); // CompletingRebalance: a heartbeat is fine
    assertFault(() -> group.checkCommit(b, null, 2, null), MemberFault.REBALANCE_IN_PROGRESS);

    SyncAnswer aSynced = done(group.sync(sync(2, a, Map.of(a, assignment("t", 0), b, assignment("t", 1)))));
    assertThat(bytes(aSynced.assignment())).isEqualTo("t-0");
    assertThat(bytes(done(bSync).assignment())).isEqualTo("t-1");
    assertThat(group.kafkaState()).isEqualTo("Stable");
    assertThat(group.owners()).containsOnly(Map.entry(new TopicPartition("t", 0), a),
        Map.entry(new TopicPartition("t", 1), b));
    assertThat(bytes(done(group.sync(sync(2, b, Map.of()))).assignment()))
        .as("in a stable group a SyncGroup gets the assignment at once").isEqualTo("t-1");
  }

  @Test
  void aMemberThatDoesNotRejoinWithinTheRebalanceTimeoutIsRemoved() {
    String a = stableAlone();
    String b = joinAndSyncSecond(a);
    String c = newMemberId();
    CompletableFuture<JoinAnswer> cJoin = group.join(join(c, null, true, "range"));
    CompletableFuture<JoinAnswer> aJoin = group.join(join(a, null, true, "range"));
    long deadline = host.nowMs + REBALANCE_MS;
    while (host.nowMs + SESSION_MS / 2 < deadline) { // b stays alive but does not rejoin
      host.nowMs += SESSION_MS / 2;
      group.tick(host.nowMs);
      assertFault(() -> group.heartbeat(b, null, 2, null), MemberFault.REBALANCE_IN_PROGRESS);
    }
    assertThat(cJoin).as("still waiting for b").isNotDone();

    host.nowMs = deadline;
    group.tick(host.nowMs);
    assertThat(done(aJoin).members()).extracting(JoinedMember::memberId).containsExactly(a, c);
    assertThat(done(cJoin).generation()).isEqualTo(3);
    assertFault(() -> group.heartbeat(b, null, 2, null), MemberFault.UNKNOWN_MEMBER_ID);
  }

  @Test
  void aLeaderThatNeverSyncsIsRemovedAndTheParkedFollowersAreToldToRejoin() {
    String a = stableAlone();
    String b = newMemberId();
    CompletableFuture<JoinAnswer> bJoin = group.join(join(b, null, true, "range"));
    done(group.join(join(a, null, true, "range")));
    done(bJoin);
    CompletableFuture<SyncAnswer> bSync = group.sync(sync(2, b, Map.of()));

    host.nowMs += REBALANCE_MS;
    group.tick(host.nowMs);
    assertThat(done(bSync).fault()).isEqualTo(MemberFault.REBALANCE_IN_PROGRESS);
    assertThat(group.memberCount()).isEqualTo(1);
    assertFault(() -> group.heartbeat(a, null, 2, null), MemberFault.UNKNOWN_MEMBER_ID);
    assertThat(group.kafkaState()).as("b rejoins alone").isEqualTo("PreparingRebalance");
  }

  @Test
  void heartbeatsAnswerByStateAndKeepTheSessionAlive() {
    assertThatThrownBy(() -> group.heartbeat("nobody", null, 0, null)).isInstanceOf(MemberFaultException.class);
    String a = stableAlone();
    assertFault(() -> group.heartbeat(a, null, 7, null), MemberFault.ILLEGAL_GENERATION);
    for (int i = 0; i < 5; i++) {
      host.nowMs += SESSION_MS - 1;
      group.tick(host.nowMs);
      group.heartbeat(a, null, 1, null);
    }
    assertThat(group.memberCount()).isEqualTo(1);
    host.nowMs += SESSION_MS + 1;
    group.tick(host.nowMs);
    assertThat(group.memberCount()).as("silent for longer than its session").isZero();
    assertThat(group.kafkaState()).isEqualTo("Empty");
    assertThat(host.emptied).isEqualTo(1);
  }

  @Test
  void aParkedJoinKeepsItsMemberAliveAndACancelledOneDoesNotRemoveIt() {
    String a = stableAlone();
    String b = joinAndSyncSecond(a);
    CompletableFuture<JoinAnswer> aJoin = group.join(join(a, null, true, "range"));
    group.joinCancelled(aJoin);
    assertThat(group.memberCount()).as("its client rejoins with its id").isEqualTo(2);
    CompletableFuture<JoinAnswer> bJoin = group.join(join(b, null, true, "range"));
    CompletableFuture<JoinAnswer> aAgain = group.join(join(a, null, true, "range"));
    assertThat(done(aAgain).generation()).isEqualTo(3);
    assertThat(done(bJoin).generation()).isEqualTo(3);
  }

  @Test
  void aRetriedJoinAnswersTheEarlierOneSoItsConnectionDoesNotWait() {
    String a = stableAlone();
    joinAndSyncSecond(a);
    CompletableFuture<JoinAnswer> first = group.join(join(a, null, true, "range"));
    CompletableFuture<JoinAnswer> second = group.join(join(a, null, true, "range"));
    assertThat(done(first).fault()).isEqualTo(MemberFault.REBALANCE_IN_PROGRESS);
    assertThat(second).isNotDone();
  }

  @Test
  void aFollowerRejoiningAStableGroupWithNothingChangedCausesNoRebalance() {
    String a = stableAlone();
    String b = joinAndSyncSecond(a);
    JoinAnswer again = done(group.join(join(b, null, true, "range")));
    assertThat(again.generation()).isEqualTo(2);
    assertThat(group.kafkaState()).isEqualTo("Stable");
  }

  // --- commits ---

  @Test
  void commitsAreCheckedAsKafkaChecksThem() {
    group.checkCommit("", null, -1, null); // an empty group: Admin and assign() consumers commit
    group.checkCommit("gone", null, -1, null);
    String a = done(group.join(new ClassicJoin("", null, "client", "/127.0.0.1", SESSION_MS, REBALANCE_MS,
        "consumer", protocols("range"), false, false, "alice"))).memberId();
    done(group.sync(new ClassicSync(1, a, null, null, null, Map.of(), "alice")));
    group.checkCommit(a, null, 1, "alice");
    assertFault(() -> group.checkCommit("stranger", null, 1, null), MemberFault.UNKNOWN_MEMBER_ID);
    assertFault(() -> group.checkCommit(a, null, 0, "alice"), MemberFault.ILLEGAL_GENERATION);
    assertFault(() -> group.checkCommit(a, null, 1, "mallory"), MemberFault.GROUP_AUTHORIZATION_FAILED);

    group.join(join("", null, false, "range")); // PreparingRebalance
    group.checkCommit(a, null, 1, "alice"); // onPartitionsRevoked commits with the current generation: taken
  }

  // --- static members ---

  @Test
  void aStaticMemberBackUnderANewIdCausesNoRebalanceAndFencesItsOldId() {
    String a = stableAlone();
    String s = staticJoinSecond(a, "i-1");
    // A restarted consumer's subscription no longer lists the partitions it owned: other metadata.
    JoinAnswer back = done(group.join(new ClassicJoin("", "i-1", "client", "/127.0.0.1", SESSION_MS, REBALANCE_MS,
        "consumer", List.of(new ClassicProtocol("range", new byte[] {1, 2, 3}, List.of("t"))), false, false, null)));
    assertThat(back.fault()).isNull();
    assertThat(back.memberId()).isNotEqualTo(s).startsWith("i-1-");
    assertThat(back.generation()).as("no rebalance").isEqualTo(2);
    assertThat(back.leaderId()).isEqualTo(a);
    assertThat(group.kafkaState()).isEqualTo("Stable");
    assertFault(() -> group.heartbeat(s, "i-1", 2, null), MemberFault.FENCED_INSTANCE_ID);
    assertThat(bytes(done(group.sync(new ClassicSync(2, back.memberId(), "i-1", null, null, Map.of(), null)))
        .assignment())).as("it keeps its assignment").isEqualTo("t-1");
    group.heartbeat(a, null, 2, null);
  }

  @Test
  void aStaticMemberBackWithAnOfferThatChangesTheGroupsAssignorCausesARebalance() {
    String a = done(group.join(join("", null, false, "roundrobin", "range"))).memberId();
    done(group.sync(sync(1, a, Map.of())));
    CompletableFuture<JoinAnswer> sJoin = group.join(join("", "i-1", true, "range", "roundrobin"));
    assertThat(done(group.join(join(a, null, false, "roundrobin", "range"))).protocolName())
        .as("a tie: the first member's order").isEqualTo("roundrobin");
    String s = done(sJoin).memberId();
    CompletableFuture<SyncAnswer> sSync = group.sync(new ClassicSync(2, s, "i-1", null, null, Map.of(), null));
    done(group.sync(sync(2, a, Map.of())));
    done(sSync);

    CompletableFuture<JoinAnswer> back = group.join(join("", "i-1", true, "range"));
    assertThat(back).as("range alone would now win: the group must rebalance").isNotDone();
    assertThat(group.kafkaState()).isEqualTo("PreparingRebalance");
  }

  @Test
  void aStaticLeaderBackIsToldToSkipTheAssignmentFromV9AndNotToLeadBefore() {
    String s = staticAlone("lead", true);
    JoinAnswer v9 = done(group.join(new ClassicJoin("", "lead", "client", "/127.0.0.1", SESSION_MS, REBALANCE_MS,
        "consumer", protocols("range"), false, true, null)));
    assertThat(v9.skipAssignment()).isTrue();
    assertThat(v9.leaderId()).isEqualTo(v9.memberId());
    assertThat(v9.members()).extracting(JoinedMember::memberId).containsExactly(v9.memberId());

    JoinAnswer v8 = done(group.join(new ClassicJoin("", "lead", "client", "/127.0.0.1", SESSION_MS, REBALANCE_MS,
        "consumer", protocols("range"), false, false, null)));
    assertThat(v8.skipAssignment()).isFalse();
    assertThat(v8.leaderId()).as("the id it had: it does not think it leads").isEqualTo(v9.memberId());
    assertThat(v8.members()).isEmpty();
    assertThat(group.generation()).isEqualTo(1);
    assertThat(s).isNotEqualTo(v9.memberId());
  }

  @Test
  void aStaticMemberBackDuringARebalanceFencesItsParkedCallsAndRebalancesAgain() {
    String a = stableAlone();
    String s = staticJoinSecond(a, "i-1");
    CompletableFuture<JoinAnswer> aJoin = group.join(join(a, null, true, "range"));
    CompletableFuture<JoinAnswer> old = group.join(join(s, "i-1", true, "range"));
    assertThat(done(aJoin).generation()).isEqualTo(3);
    assertThat(done(old).generation()).isEqualTo(3);
    CompletableFuture<SyncAnswer> oldSync = group.sync(new ClassicSync(3, s, "i-1", null, null, Map.of(), null));

    CompletableFuture<JoinAnswer> fresh = group.join(join("", "i-1", true, "range"));
    assertThat(done(oldSync).fault()).isEqualTo(MemberFault.FENCED_INSTANCE_ID);
    assertThat(group.kafkaState()).as("the leader may be assigning to the old id").isEqualTo("PreparingRebalance");
    done(group.join(join(a, null, true, "range")));
    assertThat(done(fresh).generation()).isEqualTo(4);
  }

  // --- protocols ---

  @Test
  void theAssignorWithTheMostFirstChoicesWinsATieGoesToTheFirstMembersOrder() {
    String a = done(group.join(join("", null, false, "range", "roundrobin"))).memberId();
    group.sync(sync(1, a, Map.of()));
    CompletableFuture<JoinAnswer> b = group.join(join("", null, false, "roundrobin", "range"));
    JoinAnswer tie = done(group.join(join(a, null, false, "range", "roundrobin")));
    assertThat(tie.protocolName()).isEqualTo("range");
    group.sync(sync(2, a, Map.of()));

    CompletableFuture<JoinAnswer> c = group.join(join("", null, false, "roundrobin"));
    group.join(join(a, null, false, "range", "roundrobin"));
    JoinAnswer vote = done(group.join(join(done(b).memberId(), null, false, "roundrobin", "range")));
    assertThat(vote.protocolName()).isEqualTo("roundrobin");
    assertThat(done(c).protocolName()).isEqualTo("roundrobin");
  }

  @Test
  void aMemberWithNoCommonAssignorOrAnotherProtocolTypeIsRefused() {
    stableAlone();
    assertFault(() -> group.join(join("", null, false, "sticky")), MemberFault.INCONSISTENT_GROUP_PROTOCOL);
    assertFault(() -> group.join(new ClassicJoin("", null, "c", "h", SESSION_MS, REBALANCE_MS, "connect",
        protocols("range"), false, false, null)), MemberFault.INCONSISTENT_GROUP_PROTOCOL);
    assertFault(() -> group.join(new ClassicJoin("", null, "c", "h", SESSION_MS, REBALANCE_MS, "consumer",
        List.of(), false, false, null)), MemberFault.INCONSISTENT_GROUP_PROTOCOL);
    assertFault(() -> group.join(new ClassicJoin("", null, "c", "h", 10, REBALANCE_MS, "consumer",
        protocols("range"), false, false, null)), MemberFault.INVALID_SESSION_TIMEOUT);
  }

  @Test
  void anEmptyGroupTakesAnyProtocolType() {
    String a = stableAlone();
    group.leave(List.of(new MemberIdentity(a, null)), null);
    JoinAnswer other = done(group.join(new ClassicJoin("", null, "c", "h", SESSION_MS, REBALANCE_MS, "connect",
        protocols("v1"), false, false, null)));
    assertThat(other.fault()).isNull();
    assertThat(other.protocolType()).isEqualTo("connect");
  }

  // --- leaving ---

  @Test
  void aBatchLeaveAnswersPerMemberAndStartsARebalance() {
    String a = stableAlone();
    String s = staticJoinSecond(a, "i-1");
    List<MemberFault> out = group.leave(List.of(new MemberIdentity(a, null), new MemberIdentity("ghost", null),
        new MemberIdentity("not-" + s, "i-1"), new MemberIdentity("", "i-9")), null);
    assertThat(out).containsExactly(null, MemberFault.UNKNOWN_MEMBER_ID, MemberFault.FENCED_INSTANCE_ID,
        MemberFault.UNKNOWN_MEMBER_ID);
    assertThat(group.memberCount()).isEqualTo(1);
    assertThat(group.state()).isEqualTo(GroupState.REBALANCING);

    assertThat(group.leave(List.of(new MemberIdentity("", "i-1")), null)).containsExactly((MemberFault) null);
    assertThat(group.kafkaState()).isEqualTo("Empty");
    assertThat(host.emptied).isEqualTo(1);
  }

  @Test
  void aLeaveAnswersTheLeaversParkedJoinAndCompletesTheRebalanceForTheOthers() {
    String a = stableAlone();
    String b = joinAndSyncSecond(a);
    CompletableFuture<JoinAnswer> aJoin = group.join(join(a, null, true, "range"));
    group.leave(List.of(new MemberIdentity(b, null)), null);
    assertThat(done(aJoin).generation()).isEqualTo(3);
    assertThat(done(aJoin).members()).extracting(JoinedMember::memberId).containsExactly(a);
  }

  // --- timers, disk, stop ---

  @Test
  void theInitialDelayWaitsForMoreMembersAndGrowsWithEachJoin() {
    group = new ClassicMembership(host, 3_000);
    CompletableFuture<JoinAnswer> a = group.join(join("", null, false, "range"));
    host.nowMs += 1_000;
    CompletableFuture<JoinAnswer> b = group.join(join("", null, false, "range"));
    host.nowMs += 2_999;
    group.tick(host.nowMs);
    assertThat(a).as("b's join moved the end").isNotDone();
    host.nowMs += 1;
    group.tick(host.nowMs);
    assertThat(done(a).members()).hasSize(2);
    assertThat(done(b).generation()).isEqualTo(1);
  }

  @Test
  void aGenerationThatCannotBeJournaledIsNotHandedOut() {
    host.journalAllowed = false;
    CompletableFuture<JoinAnswer> a = group.join(join("", null, false, "range"));
    group.tick(host.nowMs += REBALANCE_MS);
    assertThat(a).isNotDone();
    host.journalAllowed = true;
    group.tick(host.nowMs += 50);
    assertThat(done(a).generation()).isEqualTo(1);
  }

  @Test
  void generationsContinueFromTheGroupsJournaledOne() {
    host.generation = 41;
    group = new ClassicMembership(host, 0);
    assertThat(done(group.join(join("", null, false, "range"))).generation()).isEqualTo(42);
  }

  @Test
  void aRebalanceNoMemberRejoinsWaitsForTheStaticMembersWithoutANewGeneration() {
    String s = staticAlone("i-1", false);
    CompletableFuture<JoinAnswer> dJoin = group.join(join("", null, false, "range"));
    String d = group.members().stream().map(m -> m.memberId()).filter(id -> !id.equals(s)).findFirst().orElseThrow();
    group.leave(List.of(new MemberIdentity(d, null)), null); // the only member that rejoined is gone
    assertThat(dJoin).isDone();
    for (int i = 0; i < 2 * REBALANCE_MS / (SESSION_MS / 2); i++) { // s stays alive past the deadline, never rejoins
      host.nowMs += SESSION_MS / 2;
      group.tick(host.nowMs);
      assertFault(() -> group.heartbeat(s, null, 1, null), MemberFault.REBALANCE_IN_PROGRESS);
    }
    assertThat(host.generation).as("no generation for a rebalance nobody joined").isEqualTo(1);
    assertThat(group.kafkaState()).isEqualTo("PreparingRebalance");
    JoinAnswer back = done(group.join(new ClassicJoin(s, "i-1", "client", "/127.0.0.1", SESSION_MS, REBALANCE_MS,
        "consumer", protocols("range"), false, false, null)));
    assertThat(back.generation()).isEqualTo(2);
    assertThat(back.leaderId()).isEqualTo(s);
  }

  @Test
  void stoppingAnswersEveryParkedCall() {
    String a = stableAlone();
    joinAndSyncSecond(a);
    CompletableFuture<JoinAnswer> aJoin = group.join(join(a, null, true, "range"));
    group.close("stopping");
    assertThat(done(aJoin).fault()).isEqualTo(MemberFault.COORDINATOR_NOT_AVAILABLE);
    assertFault(() -> group.heartbeat(a, null, 2, null), MemberFault.COORDINATOR_NOT_AVAILABLE);
  }

  @Test
  void describeShowsMembersTheirAssignmentsAndSubscriptions() {
    String a = stableAlone();
    assertThat(group.members()).singleElement().satisfies(m -> {
      assertThat(m.memberId()).isEqualTo(a);
      assertThat(m.clientId()).isEqualTo("client");
      assertThat(m.address()).isEqualTo("/127.0.0.1");
      assertThat(m.assignment()).containsExactly(new TopicPartition("t", 0));
      assertThat(bytes(m.metadata())).isEqualTo("range-meta");
    });
    assertThat(group.subscribedTopics()).containsExactly("t");
    assertThat(group.protocolName()).isEqualTo("range");
  }

  // --- helpers ---

  /** One member alone in a stable group at generation 1, assigned t-0; its id. */
  private String stableAlone() {
    String a = done(group.join(join("", null, false, "range"))).memberId();
    done(group.sync(sync(1, a, Map.of(a, assignment("t", 0)))));
    assertThat(group.kafkaState()).isEqualTo("Stable");
    return a;
  }

  private String staticAlone(String instance, boolean v9) {
    String s = done(group.join(new ClassicJoin("", instance, "client", "/127.0.0.1", SESSION_MS, REBALANCE_MS,
        "consumer", protocols("range"), false, v9, null))).memberId();
    done(group.sync(new ClassicSync(group.generation(), s, instance, null, null, Map.of(s, assignment("t", 0)), null)));
    return s;
  }

  /** A second member joins the stable group led by {@code a}; both end stable at generation 2 (a: t-0, b: t-1). */
  private String joinAndSyncSecond(String a) {
    CompletableFuture<JoinAnswer> bJoin = group.join(join("", null, false, "range"));
    done(group.join(join(a, null, true, "range")));
    String b = done(bJoin).memberId();
    syncBoth(a, b, null);
    return b;
  }

  private String staticJoinSecond(String a, String instance) {
    CompletableFuture<JoinAnswer> sJoin = group.join(join("", instance, true, "range"));
    done(group.join(join(a, null, true, "range")));
    String s = done(sJoin).memberId();
    syncBoth(a, s, instance);
    return s;
  }

  private void syncBoth(String a, String b, String bInstance) {
    CompletableFuture<SyncAnswer> bSync = group.sync(new ClassicSync(2, b, bInstance, null, null, Map.of(), null));
    done(group.sync(sync(2, a, Map.of(a, assignment("t", 0), b, assignment("t", 1)))));
    done(bSync);
    assertThat(group.kafkaState()).isEqualTo("Stable");
  }

  private String newMemberId() {
    return done(group.join(join("", null, true, "range"))).memberId();
  }

  private static ClassicJoin join(String memberId, String instanceId, boolean v4, String... assignors) {
    return new ClassicJoin(memberId, instanceId, "client", "/127.0.0.1", SESSION_MS, REBALANCE_MS, "consumer",
        protocols(assignors), v4 && instanceId == null, false, null);
  }

  private static List<ClassicProtocol> protocols(String... names) {
    return Arrays.stream(names).map(n -> new ClassicProtocol(n, (n + "-meta").getBytes(StandardCharsets.UTF_8),
        List.of("t"))).toList();
  }

  private static ClassicSync sync(int generation, String memberId, Map<String, MemberAssignment> assignments) {
    return new ClassicSync(generation, memberId, null, null, null, new HashMap<>(assignments), null);
  }

  private static MemberAssignment assignment(String topic, int partition) {
    return new MemberAssignment((topic + "-" + partition).getBytes(StandardCharsets.UTF_8),
        List.of(new TopicPartition(topic, partition)));
  }

  private static String bytes(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  private static <T> T done(CompletableFuture<T> f) {
    assertThat(f).as("answered").isDone();
    return f.join();
  }

  private static void assertFault(ThrowingCallable call, MemberFault fault) {
    assertThatThrownBy(call).isInstanceOf(MemberFaultException.class)
        .satisfies(e -> assertThat(((MemberFaultException) e).fault()).isEqualTo(fault));
  }
}
