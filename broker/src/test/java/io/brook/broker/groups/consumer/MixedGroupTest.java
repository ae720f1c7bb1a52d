package io.brook.broker.groups.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.groups.MemberFault;
import io.brook.broker.groups.MemberFaultException;
import io.brook.broker.groups.TopicPartition;
import io.brook.broker.groups.classic.ClassicJoin;
import io.brook.broker.groups.classic.ClassicMembership;
import io.brook.broker.groups.classic.ClassicProtocol;
import io.brook.broker.groups.classic.ClassicSync;
import io.brook.broker.groups.classic.JoinAnswer;
import io.brook.broker.groups.classic.MemberAssignment;
import io.brook.broker.groups.classic.MemberIdentity;
import io.brook.broker.groups.classic.SyncAnswer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Classic and KIP-848 members in one group (Kafka's group.consumer.migration.policy): a classic group
 * taken over by a KIP-848 join (upgrade), classic members assigned by the broker inside it, and the
 * group going back to classic when its last KIP-848 member leaves (downgrade). Under a clock the test
 * moves; no partition is ever with two members.
 */
class MixedGroupTest {
  private static final int REBALANCE_MS = 10_000;
  private static final int CLASSIC_SESSION_MS = 20_000;
  private static final long SESSION_MS = 6_000;
  private FakeHost host;
  private ConsumerSettings settings;

  @BeforeEach
  void setUp() {
    host = new FakeHost();
    host.topics.put("orders", 4);
    settings = new ConsumerSettings(500, SESSION_MS, MigrationPolicy.BIDIRECTIONAL, 0);
  }

  @Test
  void aKip848JoinUpgradesAClassicGroupAndItsMembersRejoinForTheBrokersAssignment() {
    ClassicMembership classic = stableClassicPair();
    ConsumerMembership group = ConsumerMembership.fromClassic(host, settings, classic.handOver());
    classic.retire();
    assertFault(MemberFault.COORDINATOR_NOT_AVAILABLE, () -> classic.heartbeat(id("a"), null, 2, null));
    assertThat(group.memberCount()).isEqualTo(2);
    assertThat(group.owners()).hasSize(4); // they keep what the classic leader gave them
    assertThat(group.describe().members()).allMatch(ConsumerGroupDescription.Member::classic);

    HeartbeatAnswer c = join848(group, "c");
    int epoch = c.memberEpoch();
    assertThat(epoch).isEqualTo(3);
    assertThat(c.assignment()).isEmpty(); // all four are still with the classic members
    assertNoPartitionHeldTwice(group);

    // The classic members hear it on their next heartbeat and join again (eager: owning nothing).
    assertFault(MemberFault.REBALANCE_IN_PROGRESS, () -> group.classic().heartbeat(id("a"), null, 2, null));
    JoinAnswer a = group.classic().join(classicJoin("a", List.of()));
    assertThat(a.generation()).isEqualTo(epoch);
    assertThat(a.leaderId()).isEmpty();
    assertThat(a.protocolName()).isEqualTo("range");
    Set<TopicPartition> aHas = synced(group, "a", epoch);
    assertNoPartitionHeldTwice(group);
    assertFault(MemberFault.REBALANCE_IN_PROGRESS, () -> group.classic().heartbeat(id("b"), null, 2, null));
    group.classic().join(classicJoin("b", List.of()));
    Set<TopicPartition> bHas = synced(group, "b", epoch);
    assertNoPartitionHeldTwice(group);

    // c gets the rest once they gave it up; then everyone is stable at the new epoch.
    HeartbeatAnswer c2 = beat848(group, "c", epoch, Set.of());
    Set<TopicPartition> cHas = names(c2.assignment());
    assertThat(cHas).isNotEmpty();
    Set<TopicPartition> all = new TreeSet<>(aHas);
    all.addAll(bHas);
    all.addAll(cHas);
    assertThat(all).hasSize(4);
    assertThat(aHas.size() + bHas.size() + cHas.size()).isEqualTo(4);
    group.classic().heartbeat(id("a"), null, epoch, null);
    group.classic().heartbeat(id("b"), null, epoch, null);
    assertThat(group.kafkaState()).isEqualTo("Stable");
    assertThat(group.describe().members()).extracting(ConsumerGroupDescription.Member::classic)
        .containsExactly(true, true, false);
  }

  @Test
  void whenTheLastKip848MemberLeavesTheGroupGoesBackToClassicAndRebalances() {
    ConsumerMembership group = ConsumerMembership.fromClassic(host, settings, stableClassicPair().handOver());
    int epoch = join848(group, "c").memberEpoch();
    group.classic().join(classicJoin("a", List.of()));
    group.classic().join(classicJoin("b", List.of()));

    Map<TopicPartition, String> owners = group.owners();
    leave848(group, "c", epoch);

    assertThat(host.replacedBy).isInstanceOf(ClassicMembership.class);
    ClassicMembership classic = (ClassicMembership) host.replacedBy;
    assertThat(classic.memberCount()).isEqualTo(2);
    assertThat(classic.kafkaState()).isEqualTo("PreparingRebalance");
    assertThat(classic.owners()).isEqualTo(owners).isNotEmpty(); // still theirs until they rejoin
    assertFault(MemberFault.REBALANCE_IN_PROGRESS, () -> classic.heartbeat(id("a"), null, epoch, null));
    assertFault(MemberFault.COORDINATOR_NOT_AVAILABLE, () -> group.classic().heartbeat(id("a"), null, epoch, null));

    CompletableFuture<JoinAnswer> a = classic.join(classicJoin("a", List.of()));
    assertThat(a).isNotDone(); // waits for b, as in any classic rebalance
    CompletableFuture<JoinAnswer> b = classic.join(classicJoin("b", List.of()));
    assertThat(a.join().generation()).isEqualTo(epoch + 1).isEqualTo(b.join().generation());
    assertThat(List.of(a.join().leaderId(), b.join().leaderId())).containsOnly(a.join().leaderId());
  }

  @Test
  void withTheDowngradeDisabledClassicMembersStayInTheKip848Group() {
    settings = new ConsumerSettings(500, SESSION_MS, MigrationPolicy.UPGRADE, 0);
    ConsumerMembership group = ConsumerMembership.fromClassic(host, settings, stableClassicPair().handOver());
    int epoch = join848(group, "c").memberEpoch();

    leave848(group, "c", epoch);

    assertThat(host.replacedBy).isNull();
    assertThat(group.memberCount()).isEqualTo(2);
    assertFault(MemberFault.REBALANCE_IN_PROGRESS, () -> group.classic().heartbeat(id("a"), null, 2, null));
  }

  @Test
  void aClassicConsumerJoinsAKip848GroupAndIsAssignedByTheBroker() {
    ConsumerMembership group = new ConsumerMembership(host, settings);
    HeartbeatAnswer c = join848(group, "c");
    assertThat(names(c.assignment())).hasSize(4);

    JoinAnswer required = group.classic().join(new ClassicJoin("", null, "kc", "/127.0.0.1", CLASSIC_SESSION_MS,
        REBALANCE_MS, "consumer", protocols(List.of()), true, true, null));
    assertThat(required.fault()).isEqualTo(MemberFault.MEMBER_ID_REQUIRED);
    String id = required.memberId();
    JoinAnswer joined = group.classic().join(classicJoin(id, List.of()));
    assertThat(joined.fault()).isNull();
    assertThat(synced(group, id, joined.generation())).isEmpty(); // c still owns all four
    group.classic().heartbeat(id, null, joined.generation(), null); // nothing is free for it yet
    assertFault(MemberFault.ILLEGAL_GENERATION, () -> group.classic().heartbeat(id, null, joined.generation() - 1, null));
    assertFault(MemberFault.ILLEGAL_GENERATION, () -> group.checkCommit(id, null, joined.generation() - 1, null));
    group.checkCommit(id, null, joined.generation(), null);
    // It commits with its classic OffsetCommit (kcat's v7): only KIP-848 members must use v9+.
    assertThat(group.heartbeats(id)).isFalse();
    assertThat(group.heartbeats("c")).isTrue();

    // c gives up what the classic member is to get; the classic member's heartbeat says join again.
    Set<TopicPartition> cKeeps = names(beat848(group, "c", c.memberEpoch(), null).assignment());
    assertThat(cKeeps).hasSize(2);
    beat848(group, "c", c.memberEpoch(), cKeeps);
    assertFault(MemberFault.REBALANCE_IN_PROGRESS, () -> group.classic().heartbeat(id, null, joined.generation(), null));
    JoinAnswer again = group.classic().join(classicJoin(id, List.of()));
    Set<TopicPartition> mine = synced(group, id, again.generation());
    assertThat(mine).hasSize(2).doesNotContainAnyElementsOf(cKeeps);
    group.classic().heartbeat(id, null, again.generation(), null);
    assertNoPartitionHeldTwice(group);

    // A KIP-848 member is not a classic one, nor the reverse.
    assertFault(MemberFault.UNKNOWN_MEMBER_ID, () -> group.classic().heartbeat("c", null, again.generation(), null));
    assertFault(MemberFault.UNKNOWN_MEMBER_ID, () -> beat848(group, id, again.generation(), Set.of()));
    assertFault(MemberFault.INCONSISTENT_GROUP_PROTOCOL, () -> group.classic().join(new ClassicJoin("", null, "kc",
        "/127.0.0.1", CLASSIC_SESSION_MS, REBALANCE_MS, "connect", protocols(List.of()), false, true, null)));
    assertThat(group.classic().leave(List.of(new MemberIdentity(id, null), new MemberIdentity("c", null)), null))
        .containsExactly(null, MemberFault.UNKNOWN_MEMBER_ID);
    assertThat(group.memberCount()).isEqualTo(1);
  }

  @Test
  void aCooperativeClassicMemberGivesUpPartitionsByJoiningAgainWithWhatItKept() {
    ConsumerMembership group = new ConsumerMembership(host, settings);
    JoinAnswer a = group.classic().join(classicJoin("a", List.of()));
    assertThat(synced(group, "a", a.generation())).hasSize(4);
    int epoch = join848(group, "c").memberEpoch();

    assertFault(MemberFault.REBALANCE_IN_PROGRESS, () -> group.classic().heartbeat(id("a"), null, a.generation(), null));
    List<TopicPartition> owned = List.of(orders(0), orders(1), orders(2), orders(3));
    JoinAnswer rejoined = group.classic().join(classicJoin("a", owned));
    assertThat(rejoined.generation()).isEqualTo(a.generation()); // it must give some up first
    Set<TopicPartition> kept = synced(group, "a", rejoined.generation());
    assertThat(kept).hasSize(2);
    assertFault(MemberFault.REBALANCE_IN_PROGRESS, () -> group.classic().heartbeat(id("a"), null, a.generation(), null));

    JoinAnswer done = group.classic().join(classicJoin("a", List.copyOf(kept)));
    assertThat(done.generation()).isEqualTo(epoch);
    assertThat(synced(group, "a", epoch)).isEqualTo(kept);
    assertThat(names(beat848(group, "c", epoch, Set.of()).assignment())).hasSize(2).doesNotContainAnyElementsOf(kept);
    assertNoPartitionHeldTwice(group);
  }

  @Test
  void aClassicMemberKeepsItsOwnSessionTimeoutAndIsRemovedWhenItDoesNotRejoinInTime() {
    ConsumerMembership group = new ConsumerMembership(host, settings);
    group.classic().join(classicJoin("a", List.of()));
    group.classic().join(classicJoin("b", List.of()));
    int c = join848(group, "c").memberEpoch();
    host.now += SESSION_MS + 1; // past the KIP-848 session, within the classic one
    c = beat848(group, "c", c, null).memberEpoch();
    group.tick(host.now);
    assertThat(group.memberCount()).isEqualTo(3);

    // a hears it must rejoin and does not; b goes silent.
    group.classic().join(classicJoin("b", List.of()));
    assertFault(MemberFault.REBALANCE_IN_PROGRESS, () -> group.classic().heartbeat(id("a"), null, 1, null));
    host.now += REBALANCE_MS + 1;
    c = beat848(group, "c", c, null).memberEpoch();
    group.tick(host.now);
    assertThat(group.describe().members()).extracting(ConsumerGroupDescription.Member::memberId)
        .containsExactlyInAnyOrder("b", "c");
    host.now += CLASSIC_SESSION_MS;
    beat848(group, "c", c, null);
    group.tick(host.now);
    assertThat(group.describe().members()).extracting(ConsumerGroupDescription.Member::memberId).containsExactly("c");
  }

  @Test
  void aStaticKip848ConsumerTakesTheInstanceOfAClassicStaticMemberThatWasRestarted() {
    ConsumerMembership group = new ConsumerMembership(host, settings);
    JoinAnswer old = group.classic().join(staticClassicJoin("", "pod-0"));
    int epoch = old.generation();
    assertThat(synced(group, old.memberId(), epoch)).hasSize(4);

    // The pod comes back with group.protocol=consumer: a classic member sends no leave, so it is still there.
    HeartbeatAnswer k = group.heartbeat(new ConsumerHeartbeat("billing", "k-0", 0, "pod-0", null, REBALANCE_MS,
        List.of("orders"), null, null, List.of(), "kc", "127.0.0.1", null));
    assertThat(k.fault()).isNull();
    assertThat(names(k.assignment())).hasSize(4); // its partitions, no rebalance
    assertThat(group.describe().members()).extracting(ConsumerGroupDescription.Member::memberId).containsExactly("k-0");
    assertFault(MemberFault.UNKNOWN_MEMBER_ID, () -> group.classic().heartbeat(old.memberId(), null, epoch, null));
  }

  @Test
  void aClassicStaticConsumerTakesTheInstanceOfTheLastKip848MemberAndTheGroupIsClassicAgain() {
    ConsumerMembership group = new ConsumerMembership(host, settings);
    group.classic().join(classicJoin("a", List.of()));
    int epoch = group.heartbeat(new ConsumerHeartbeat("billing", "k-0", 0, "pod-0", null, REBALANCE_MS,
        List.of("orders"), null, null, List.of(), "kc", "127.0.0.1", null)).memberEpoch();
    group.heartbeat(new ConsumerHeartbeat("billing", "k-0", -2, "pod-0", null, -1, null, null, null, null, null, null,
        null)); // it stops for a while (a rolling downgrade)

    JoinAnswer back = group.classic().join(staticClassicJoin("", "pod-0"));

    assertThat(back.fault()).isNull();
    assertThat(back.generation()).isEqualTo(epoch);
    assertThat(host.replacedBy).isInstanceOf(ClassicMembership.class);
    ClassicMembership classic = (ClassicMembership) host.replacedBy;
    assertThat(classic.memberCount()).isEqualTo(2);
    // Its SyncGroup, on its way, names the protocol it joined with: it is told to rejoin, nothing fatal.
    assertFault(MemberFault.REBALANCE_IN_PROGRESS, () -> classic.sync(new ClassicSync(back.generation(),
        back.memberId(), "pod-0", "consumer", "range", Map.of(), null)));
  }

  @Test
  void withTheMigrationDisabledAClassicConsumerCannotJoinAKip848GroupAsKafka() {
    settings = new ConsumerSettings(500, SESSION_MS, MigrationPolicy.DISABLED, 0);
    ConsumerMembership group = new ConsumerMembership(host, settings);
    join848(group, "c");
    assertFault(MemberFault.INCONSISTENT_GROUP_PROTOCOL, () -> group.classic().join(classicJoin("a", List.of())));
    assertThat(group.memberCount()).isEqualTo(1);
  }

  private static ClassicJoin staticClassicJoin(String memberId, String instance) {
    return new ClassicJoin(memberId, instance, "kc", "/127.0.0.1", CLASSIC_SESSION_MS, REBALANCE_MS, "consumer",
        protocols(List.of()), false, true, null);
  }

  /** A classic group of a and b, stable at generation 2, a with orders-0/1, b with orders-2/3. */
  private ClassicMembership stableClassicPair() {
    ClassicMembership classic = new ClassicMembership(host, 0);
    CompletableFuture<JoinAnswer> a = classic.join(classicJoin("", List.of()));
    String aId = a.join().memberId();
    classic.sync(new ClassicSync(1, aId, null, "consumer", "range", Map.of(aId, assignment(0, 1, 2, 3)), null)).join();
    CompletableFuture<JoinAnswer> b = classic.join(classicJoin("", List.of()));
    assertFault(MemberFault.REBALANCE_IN_PROGRESS, () -> classic.heartbeat(aId, null, 1, null));
    classic.join(classicJoin(aId, List.of()));
    String bId = b.join().memberId();
    Map<String, MemberAssignment> plan = new HashMap<>();
    plan.put(aId, assignment(0, 1));
    plan.put(bId, assignment(2, 3));
    CompletableFuture<SyncAnswer> bSync = classic.sync(new ClassicSync(2, bId, null, "consumer", "range", Map.of(), null));
    classic.sync(new ClassicSync(2, aId, null, "consumer", "range", plan, null)).join();
    bSync.join();
    assertThat(classic.kafkaState()).isEqualTo("Stable");
    // the ids are random: the tests name them a and b
    renamed.put("a", aId);
    renamed.put("b", bId);
    return classic;
  }

  private final Map<String, String> renamed = new HashMap<>();

  private String id(String name) {
    return renamed.getOrDefault(name, name);
  }

  /** A classic consumer's JoinGroup (v9, dynamic, no MEMBER_ID_REQUIRED round), offering range first. */
  private ClassicJoin classicJoin(String member, List<TopicPartition> owned) {
    return new ClassicJoin(id(member), null, "kc", "/127.0.0.1", CLASSIC_SESSION_MS, REBALANCE_MS, "consumer",
        protocols(owned), false, true, null);
  }

  private Set<TopicPartition> synced(ConsumerMembership group, String member, int generation) {
    SyncAnswer s = group.classic().sync(new ClassicSync(generation, id(member), null, "consumer", "range", Map.of(),
        null));
    assertThat(s.fault()).isNull();
    assertThat(s.assignment()).isNull(); // the door encodes the broker's assignment
    return new TreeSet<>(s.assigned());
  }

  private HeartbeatAnswer join848(ConsumerMembership group, String member) {
    return group.heartbeat(new ConsumerHeartbeat("billing", member, 0, null, null, REBALANCE_MS, List.of("orders"),
        null, null, List.of(), "client-" + member, "127.0.0.1", null));
  }

  private HeartbeatAnswer beat848(ConsumerMembership group, String member, int epoch, Set<TopicPartition> owned) {
    return group.heartbeat(new ConsumerHeartbeat("billing", member, epoch, null, null, -1, null, null, null,
        owned == null ? null : byId(owned), null, null, null));
  }

  private void leave848(ConsumerMembership group, String member, int epoch) {
    group.heartbeat(new ConsumerHeartbeat("billing", member, -1, null, null, -1, null, null, null, null, null, null,
        null));
  }

  private static List<TopicPartitions> byId(Set<TopicPartition> tps) {
    List<Integer> ps = tps.stream().map(TopicPartition::partition).sorted().toList();
    return ps.isEmpty() ? List.of() : List.of(new TopicPartitions(FakeHost.id("orders"), ps));
  }

  private Set<TopicPartition> names(List<TopicPartitions> byId) {
    Set<TopicPartition> out = new TreeSet<>();
    if (byId != null) {
      byId.forEach(t -> t.partitions().forEach(p -> out.add(new TopicPartition(host.topicName(t.topicId()).get(), p))));
    }
    return out;
  }

  private static TopicPartition orders(int p) {
    return new TopicPartition("orders", p);
  }

  private static MemberAssignment assignment(int... partitions) {
    List<TopicPartition> tps = new ArrayList<>();
    for (int p : partitions) {
      tps.add(orders(p));
    }
    return new MemberAssignment(new byte[] {1}, tps);
  }

  private static List<ClassicProtocol> protocols(List<TopicPartition> owned) {
    return List.of(new ClassicProtocol("range", new byte[] {0, 1}, List.of("orders"), owned),
        new ClassicProtocol("cooperative-sticky", new byte[] {0, 1}, List.of("orders"), owned));
  }

  /** No partition is with two members: what each was told it may consume, plus what it is giving up. */
  private static void assertNoPartitionHeldTwice(ConsumerMembership group) {
    List<TopicPartition> held = new ArrayList<>();
    group.describe().members().forEach(m -> m.assignment().forEach(t -> t.partitions().forEach(p ->
        held.add(new TopicPartition(t.name(), p)))));
    assertThat(held).doesNotHaveDuplicates();
  }

  private static void assertFault(MemberFault fault, ThrowingCallable call) {
    assertThatThrownBy(call).isInstanceOf(MemberFaultException.class)
        .satisfies(e -> assertThat(((MemberFaultException) e).fault()).isEqualTo(fault));
  }
}
