package io.brook.broker.groups.classic;

import io.brook.broker.errors.Ownership;
import io.brook.broker.groups.GroupProtocol;
import io.brook.broker.groups.GroupState;
import io.brook.broker.groups.GroupView;
import io.brook.broker.groups.MemberFault;
import io.brook.broker.groups.MemberFaultException;
import io.brook.broker.groups.Membership;
import io.brook.broker.groups.MembershipHost;
import io.brook.broker.groups.TopicPartition;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's classic group protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup) for one group: the
 * broker elects a leader among the members, hands it every member's metadata, and relays the
 * assignment the leader computes (opaque bytes) to each member. A join starts a rebalance; it
 * completes when every member has rejoined (or the rebalance timeout, the members' largest, passed:
 * the others are removed), and then the generation grows, journaled by the host before anyone hears
 * it. Static members ({@code group.instance.id}) rejoin under a new member id without a rebalance.
 * Every method runs under the hosting group's monitor; the timers run from {@link #tick}.
 */
public final class ClassicMembership implements Membership {
  private static final Logger log = LoggerFactory.getLogger(ClassicMembership.class);

  private final MembershipHost host;
  private final long initialDelayMs;
  private final Map<String, ClassicMember> members = new LinkedHashMap<>();
  /** Ids handed out with MEMBER_ID_REQUIRED and not joined with yet, with the time they expire. */
  private final Map<String, Long> pending = new LinkedHashMap<>();
  /** Members of the generation that have not sent their SyncGroup yet. */
  private final Set<String> awaitingSync = new LinkedHashSet<>();
  private ClassicState state = ClassicState.EMPTY;
  private String protocolType = "";
  private String protocolName = "";
  private String leaderId;
  private int generation;
  private long joinDeadlineMs;
  /** The first rebalance of an empty group waits group.initial.rebalance.delay.ms for more members. */
  private boolean initialJoin;
  private long initialJoinEndMs;
  private long syncDeadlineMs;

  /** @param initialDelayMs group.initial.rebalance.delay.ms */
  public ClassicMembership(MembershipHost host, long initialDelayMs) {
    this.host = host;
    this.initialDelayMs = initialDelayMs;
    this.generation = host.generation();
  }

  /**
   * A classic group made of the classic members a KIP-848 group had when its last KIP-848 member
   * left (Kafka's online downgrade): they keep their ids and partitions until they rejoin, which a
   * rebalance started at once asks of them.
   */
  public ClassicMembership(MembershipHost host, long initialDelayMs, List<ClassicHandover> handed) {
    this(host, initialDelayMs);
    long now = host.nowMs();
    protocolType = "consumer";
    for (ClassicHandover h : handed) {
      ClassicMember m = new ClassicMember(h.memberId(), new ClassicJoin(h.memberId(), h.instanceId(), h.clientId(),
          h.clientHost(), h.sessionTimeoutMs(), h.rebalanceTimeoutMs(), "consumer", h.protocols(), false, false,
          h.owner()), now);
      m.assignment = new MemberAssignment(new byte[0], h.assigned());
      members.put(m.id, m);
    }
    // The protocol they share, as Kafka chooses it here: a member whose SyncGroup is on its way names
    // it and is told to rejoin, not that its protocol is wrong.
    String chosen = ProtocolVote.select(members.values());
    protocolName = chosen == null ? "" : chosen;
    state = ClassicState.STABLE;
    prepareRebalance(now, "the group went back to the classic protocol with " + members.size() + " member(s)");
  }

  /**
   * Whether a KIP-848 member may join: the members are consumers (protocol type "consumer"), whose
   * subscriptions and assignments the broker can read (Kafka's online upgrade).
   */
  public boolean canHandOver() {
    return state != ClassicState.DEAD && !members.isEmpty() && "consumer".equals(protocolType);
  }

  /**
   * Its members as a KIP-848 group takes them over (Kafka's online upgrade); nothing changes here until
   * {@link #retire} (the KIP-848 join that takes them may still be refused).
   */
  public List<ClassicHandover> handOver() {
    List<ClassicHandover> out = new ArrayList<>();
    for (ClassicMember m : members.values()) {
      ClassicProtocol chosen = m.protocol(protocolName);
      List<String> topics = (chosen != null ? chosen : m.protocols.get(0)).topics();
      // What it was last assigned it may still own (mid-rebalance too): nobody else gets it before it rejoins.
      out.add(new ClassicHandover(m.id, m.instanceId, m.owner, m.clientId, m.clientHost, m.sessionTimeoutMs,
          m.rebalanceTimeoutMs, m.protocols, topics, m.assignment.partitions()));
    }
    return out;
  }

  /**
   * Ends this engine once a KIP-848 group took its members: parked joins and syncs are answered
   * REBALANCE_IN_PROGRESS, so they join again, into the KIP-848 group.
   */
  public void retire() {
    answerParked(MemberFault.REBALANCE_IN_PROGRESS);
    state = ClassicState.DEAD;
    members.clear();
    pending.clear();
    awaitingSync.clear();
  }

  /**
   * Joins or rejoins; the answer completes when the rebalance does (at once for MEMBER_ID_REQUIRED
   * and for a member that rejoins a stable group with nothing changed).
   *
   * @throws MemberFaultException when the join is refused at once
   */
  public CompletableFuture<JoinAnswer> join(ClassicJoin r) {
    long now = host.nowMs();
    requireAlive();
    if (r.sessionTimeoutMs() < host.minSessionTimeoutMs() || r.sessionTimeoutMs() > host.maxSessionTimeoutMs()) {
      throw fault(MemberFault.INVALID_SESSION_TIMEOUT, "session timeout " + r.sessionTimeoutMs()
          + " ms is outside the broker's bounds [" + host.minSessionTimeoutMs() + ", " + host.maxSessionTimeoutMs()
          + "] (group.min/max.session.timeout.ms)");
    }
    if (r.protocolType().isEmpty() || r.protocols().isEmpty()) {
      throw fault(MemberFault.INCONSISTENT_GROUP_PROTOCOL, "a JoinGroup needs a protocol type and at least one protocol");
    }
    if (!members.isEmpty() && !supports(r)) {
      throw fault(MemberFault.INCONSISTENT_GROUP_PROTOCOL, "group '" + host.groupName() + "' has protocol type '"
          + protocolType + "' and protocols " + ProtocolVote.common(members.values())
          + ": the member's offer has none of them");
    }
    return r.memberId().isEmpty() ? joinNew(r, now) : joinKnown(r, now);
  }

  /** Same protocol type, and at least one assignor every present member offers too. */
  private boolean supports(ClassicJoin r) {
    if (!protocolType.equals(r.protocolType())) {
      return false;
    }
    List<String> common = ProtocolVote.common(members.values().stream().filter(m -> !m.id.equals(r.memberId())).toList());
    return members.size() == 1 && members.containsKey(r.memberId())
        || r.protocols().stream().anyMatch(p -> common.contains(p.name()));
  }

  private CompletableFuture<JoinAnswer> joinNew(ClassicJoin r, long now) {
    if (r.instanceId() != null) {
      String id = r.instanceId() + "-" + UUID.randomUUID();
      ClassicMember old = byInstance(r.instanceId());
      return old == null ? addAndRebalance(id, r, now) : replaceStatic(old, id, r, now);
    }
    String id = r.clientId() + "-" + UUID.randomUUID();
    if (r.requireKnownMemberId()) {
      // The id goes out first and the member joins with it, so a join retried after a lost answer
      // does not leave a second member behind; unused ids expire after the session timeout.
      pending.put(id, now + r.sessionTimeoutMs());
      return CompletableFuture.completedFuture(JoinAnswer.refused(MemberFault.MEMBER_ID_REQUIRED, id));
    }
    return addAndRebalance(id, r, now);
  }

  private CompletableFuture<JoinAnswer> joinKnown(ClassicJoin r, long now) {
    if (r.instanceId() == null && pending.remove(r.memberId()) != null) {
      return addAndRebalance(r.memberId(), r, now);
    }
    ClassicMember m = member(r.memberId(), r.instanceId(), r.owner());
    boolean same = m.sameProtocols(r.protocols());
    switch (state) {
      case COMPLETING_REBALANCE:
        if (same) { // its join answer was lost: the same again
          m.lastSeenMs = now;
          return CompletableFuture.completedFuture(joined(m, m.id.equals(leaderId)));
        }
        break;
      case STABLE:
        if (same && !m.id.equals(leaderId)) { // nothing changed: no rebalance (a leader's rejoin is its ask for one)
          m.lastSeenMs = now;
          return CompletableFuture.completedFuture(joined(m, false));
        }
        break;
      default:
        break;
    }
    return rejoin(m, r, now, "member " + m.id + " rejoined");
  }

  private CompletableFuture<JoinAnswer> addAndRebalance(String id, ClassicJoin r, long now) {
    if (members.isEmpty()) {
      protocolType = r.protocolType();
    }
    ClassicMember m = new ClassicMember(id, r, now);
    members.put(id, m);
    log.info("Group {}: member {} joined ({} members)", host.groupName(), id, members.size());
    if (state == ClassicState.PREPARING_REBALANCE && initialJoin) {
      joinDeadlineMs = Math.min(now + initialDelayMs, initialJoinEndMs); // wait a little longer for the others
    }
    return rejoin(m, r, now, "member " + id + " joined");
  }

  private CompletableFuture<JoinAnswer> rejoin(ClassicMember m, ClassicJoin r, long now, String why) {
    if (m.join != null) { // superseded by this one; its connection must not wait behind it
      m.join.complete(JoinAnswer.refused(MemberFault.REBALANCE_IN_PROGRESS, m.id));
    }
    m.update(r, now);
    m.join = new CompletableFuture<>();
    CompletableFuture<JoinAnswer> answer = m.join;
    prepareRebalance(now, why);
    maybeCompleteJoin(now);
    return answer;
  }

  /**
   * A static member back under a new id: the old id is fenced. In a stable group with the same
   * chosen assignor it gets the generation and its assignment as they are, without a rebalance; a leader
   * (v9+) is told to skip the assignment, an older one is not told it leads, so it does not assign.
   */
  private CompletableFuture<JoinAnswer> replaceStatic(ClassicMember m, String newId, ClassicJoin r, long now) {
    if (!Ownership.allows(m.owner, r.owner())) {
      throw fault(MemberFault.GROUP_AUTHORIZATION_FAILED, "static member '" + r.instanceId() + "' of group '"
          + host.groupName() + "' was made by another principal");
    }
    String oldId = m.id;
    String leaderBefore = leaderId;
    boolean leader = oldId.equals(leaderId);
    fence(m);
    members.remove(oldId);
    m.id = newId;
    members.put(newId, m);
    if (awaitingSync.remove(oldId)) {
      awaitingSync.add(newId);
    }
    if (leader) {
      leaderId = newId;
    }
    log.info("Group {}: static member {} is back as {} (was {})", host.groupName(), r.instanceId(), newId, oldId);
    if (state == ClassicState.STABLE && protocolName.equals(selectedWith(m, r.protocols()))) {
      // Its metadata may differ (a consumer's lists the partitions it owns, none after a restart):
      // as in Kafka, only a change of the group's assignor calls for a rebalance.
      m.update(r, now);
      boolean skip = leader && r.supportsSkipAssignment();
      return CompletableFuture.completedFuture(new JoinAnswer(null, newId, generation, protocolType, protocolName,
          skip ? newId : leaderBefore, skip, skip ? joinedMembers() : List.of()));
    }
    // Mid-rebalance the leader may already be assigning to the old id: rebalance again.
    return rejoin(m, r, now, "static member " + r.instanceId() + " rejoined");
  }

  /** The assignor the group would choose were {@code m} to offer {@code protocols}. */
  private String selectedWith(ClassicMember m, List<ClassicProtocol> protocols) {
    List<ClassicProtocol> before = m.protocols;
    m.protocols = protocols;
    String chosen = ProtocolVote.select(members.values());
    m.protocols = before;
    return chosen;
  }

  /** Its parked calls are answered FENCED_INSTANCE_ID: a newer instance took its place. */
  private void fence(ClassicMember m) {
    if (m.join != null) {
      m.join.complete(JoinAnswer.refused(MemberFault.FENCED_INSTANCE_ID, m.id));
      m.join = null;
    }
    if (m.sync != null) {
      m.sync.complete(SyncAnswer.refused(MemberFault.FENCED_INSTANCE_ID));
      m.sync = null;
    }
  }

  /**
   * The member's SyncGroup: the leader's stores every member's assignment and answers the parked
   * ones; a follower's waits for the leader's; in a stable group each gets its assignment at once.
   *
   * @throws MemberFaultException when refused at once
   */
  public CompletableFuture<SyncAnswer> sync(ClassicSync s) {
    long now = host.nowMs();
    requireAlive();
    ClassicMember m = member(s.memberId(), s.instanceId(), s.owner());
    if (s.generation() != generation) {
      throw illegalGeneration(s.generation());
    }
    if (s.protocolType() != null && !s.protocolType().equals(protocolType)
        || s.protocolName() != null && !s.protocolName().equals(protocolName)) {
      throw fault(MemberFault.INCONSISTENT_GROUP_PROTOCOL, "the group's protocol is '" + protocolType + "'/'"
          + protocolName + "', not '" + s.protocolType() + "'/'" + s.protocolName() + "'");
    }
    m.lastSeenMs = now;
    switch (state) {
      case PREPARING_REBALANCE:
        throw fault(MemberFault.REBALANCE_IN_PROGRESS, "group '" + host.groupName() + "' is rebalancing: join again");
      case STABLE:
        awaitingSync.remove(m.id);
        return CompletableFuture.completedFuture(synced(m));
      case COMPLETING_REBALANCE:
        break;
      default:
        throw unknownMember(m.id);
    }
    if (m.sync != null) { // a retried SyncGroup: the earlier one is not waited for any more
      m.sync.complete(SyncAnswer.refused(MemberFault.REBALANCE_IN_PROGRESS));
    }
    m.sync = new CompletableFuture<>();
    CompletableFuture<SyncAnswer> answer = m.sync;
    awaitingSync.remove(m.id);
    if (m.id.equals(leaderId)) {
      for (ClassicMember each : members.values()) {
        each.assignment = s.assignments().getOrDefault(each.id, MemberAssignment.NONE);
      }
      state = ClassicState.STABLE;
      for (ClassicMember each : members.values()) {
        if (each.sync != null) {
          each.sync.complete(synced(each));
          each.sync = null;
          each.lastSeenMs = now;
        }
      }
      log.info("Group {}: generation {} is stable, the leader assigned {} partition(s) to {} member(s)",
          host.groupName(), generation, owners().size(), members.size());
    }
    return answer;
  }

  /**
   * Keeps the member alive; answered at once, never held: REBALANCE_IN_PROGRESS is how it hears it
   * must rejoin.
   *
   * @throws MemberFaultException UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS
   */
  public void heartbeat(String memberId, String instanceId, int memberGeneration, String caller) {
    requireAlive();
    ClassicMember m = member(memberId, instanceId, caller);
    if (memberGeneration != generation) {
      throw illegalGeneration(memberGeneration);
    }
    m.lastSeenMs = host.nowMs();
    if (state == ClassicState.PREPARING_REBALANCE) {
      throw fault(MemberFault.REBALANCE_IN_PROGRESS, "group '" + host.groupName() + "' is rebalancing: join again");
    }
  }

  /** Members leave, by id or (static members) by instance id; per member, null or why not. */
  public List<MemberFault> leave(List<MemberIdentity> leaving, String caller) {
    long now = host.nowMs();
    List<MemberFault> out = new ArrayList<>();
    int removed = 0;
    for (MemberIdentity who : leaving) {
      if (who.instanceId() == null && pending.remove(who.memberId()) != null) {
        out.add(null);
        continue;
      }
      try {
        ClassicMember m = who.instanceId() != null && who.memberId().isEmpty()
            ? member(idOfInstance(who.instanceId()), who.instanceId(), caller)
            : member(who.memberId(), who.instanceId(), caller);
        remove(m, "left");
        removed++;
        out.add(null);
      } catch (MemberFaultException e) {
        out.add(e.fault());
      }
    }
    if (removed > 0) {
      afterRemoval(now, removed + " member(s) left");
    } else if (state == ClassicState.PREPARING_REBALANCE) {
      maybeCompleteJoin(now); // a pending member that left is no longer waited for
    }
    return out;
  }

  /** The caller of a parked JoinGroup went away: the member stays (its client rejoins with its id) but waits no more. */
  public void joinCancelled(CompletableFuture<JoinAnswer> answer) {
    members.values().stream().filter(m -> m.join == answer).forEach(m -> m.join = null);
  }

  /** The caller of a parked SyncGroup went away; the member stays. */
  public void syncCancelled(CompletableFuture<SyncAnswer> answer) {
    members.values().stream().filter(m -> m.sync == answer).forEach(m -> m.sync = null);
  }

  @Override
  public void checkCommit(String memberId, String instanceId, int memberGeneration, String caller) {
    requireAlive();
    if (memberGeneration < 0 && members.isEmpty()) {
      return; // from outside an empty group, as Kafka's Admin and assign() consumers commit
    }
    member(memberId, instanceId, caller);
    if (memberGeneration != generation) {
      throw illegalGeneration(memberGeneration);
    }
    if (state == ClassicState.COMPLETING_REBALANCE) {
      // Its partitions are about to be reassigned. While the group prepares a rebalance the
      // generation is still the current one: onPartitionsRevoked commits then, and is taken.
      throw fault(MemberFault.REBALANCE_IN_PROGRESS, "group '" + host.groupName()
          + "' is completing a rebalance: commit after it");
    }
  }

  @Override
  public void tick(long now) {
    if (state == ClassicState.DEAD) {
      return;
    }
    boolean pendingExpired = pending.values().removeIf(expiry -> now > expiry);
    List<ClassicMember> expired = members.values().stream().filter(m -> m.expired(now)).toList();
    expired.forEach(m -> remove(m, "removed, no heartbeat within its session timeout"));
    if (!expired.isEmpty()) {
      afterRemoval(now, expired.size() + " member(s) timed out");
    } else if (pendingExpired) {
      maybeCompleteJoin(now);
    }
    if (state == ClassicState.PREPARING_REBALANCE && now >= joinDeadlineMs) {
      initialJoin = false;
      completeJoin(now);
    }
    if ((state == ClassicState.COMPLETING_REBALANCE || state == ClassicState.STABLE) && !awaitingSync.isEmpty()
        && now >= syncDeadlineMs) {
      List<ClassicMember> late = awaitingSync.stream().map(members::get).toList();
      late.forEach(m -> remove(m, "removed, no SyncGroup within the rebalance timeout"));
      afterRemoval(now, late.size() + " member(s) did not sync");
    }
  }

  /** The leader watches the topics and rejoins when they change: the broker has nothing to do. */
  @Override
  public void topicsChanged(long nowMs) {}

  @Override
  public void close(String why) {
    state = ClassicState.DEAD;
    answerParked(MemberFault.COORDINATOR_NOT_AVAILABLE);
  }

  /** Every parked JoinGroup and SyncGroup is answered with {@code fault}. */
  private void answerParked(MemberFault fault) {
    for (ClassicMember m : members.values()) {
      if (m.join != null) {
        m.join.complete(JoinAnswer.refused(fault, m.id));
        m.join = null;
      }
      if (m.sync != null) {
        m.sync.complete(SyncAnswer.refused(fault));
        m.sync = null;
      }
    }
  }

  private void prepareRebalance(long now, String why) {
    if (state == ClassicState.PREPARING_REBALANCE) {
      return;
    }
    if (state == ClassicState.COMPLETING_REBALANCE) { // the leader's assignment would be for the old members
      for (ClassicMember m : members.values()) {
        m.assignment = MemberAssignment.NONE;
        if (m.sync != null) {
          m.sync.complete(SyncAnswer.refused(MemberFault.REBALANCE_IN_PROGRESS));
          m.sync = null;
        }
      }
    }
    awaitingSync.clear();
    long timeout = members.values().stream().mapToLong(m -> m.rebalanceTimeoutMs).max().orElse(0);
    initialJoin = state == ClassicState.EMPTY && initialDelayMs > 0;
    if (initialJoin) {
      initialJoinEndMs = now + timeout;
      joinDeadlineMs = Math.min(now + initialDelayMs, initialJoinEndMs);
    } else {
      joinDeadlineMs = now + timeout;
    }
    state = ClassicState.PREPARING_REBALANCE;
    log.info("Group {}: preparing a rebalance (generation {}): {}", host.groupName(), generation, why);
  }

  /** Completes the join at once when every member and pending member has joined (not in the initial delay). */
  private void maybeCompleteJoin(long now) {
    if (state == ClassicState.PREPARING_REBALANCE && !initialJoin && pending.isEmpty()
        && members.values().stream().allMatch(m -> m.join != null)) {
      completeJoin(now);
    }
  }

  /**
   * Ends the join phase: dynamic members that did not rejoin are removed (static ones stay until their
   * session ends), the generation grows, the leader gets every member's metadata.
   */
  private void completeJoin(long now) {
    List<ClassicMember> gone = members.values().stream().filter(m -> m.join == null && m.instanceId == null).toList();
    gone.forEach(m -> remove(m, "removed, it did not rejoin within the rebalance timeout"));
    if (members.isEmpty()) {
      becomeEmpty();
      return;
    }
    if (members.values().stream().noneMatch(m -> m.join != null)) {
      // Only static members are left and none rejoined: no generation without a leader; wait for them
      // another rebalance timeout (their sessions may end meanwhile), as Kafka does.
      joinDeadlineMs = now + members.values().stream().mapToLong(m -> m.rebalanceTimeoutMs).max().orElse(0);
      return;
    }
    int next = host.generation() + 1;
    if (!host.journalGeneration(next)) {
      return; // no room to journal it: the joins wait, and the next tick tries again
    }
    generation = next;
    String chosen = ProtocolVote.select(members.values());
    protocolName = chosen == null ? "" : chosen;
    if (leaderId == null || !members.containsKey(leaderId) || members.get(leaderId).join == null) {
      leaderId = members.values().stream().filter(m -> m.join != null).findFirst().orElseThrow().id;
    }
    state = ClassicState.COMPLETING_REBALANCE;
    awaitingSync.clear();
    awaitingSync.addAll(members.keySet());
    syncDeadlineMs = now + members.values().stream().mapToLong(m -> m.rebalanceTimeoutMs).max().orElse(0);
    for (ClassicMember m : members.values()) {
      if (m.join != null) {
        m.join.complete(joined(m, m.id.equals(leaderId)));
        m.join = null;
        m.lastSeenMs = now;
      }
    }
    log.info("Group {}: generation {} with {} member(s), protocol {}, leader {}", host.groupName(), generation,
        members.size(), protocolName, leaderId);
  }

  private void becomeEmpty() {
    if (state == ClassicState.EMPTY) {
      return;
    }
    state = ClassicState.EMPTY;
    protocolName = "";
    leaderId = null;
    awaitingSync.clear();
    initialJoin = false;
    host.membershipEmptied();
  }

  private void remove(ClassicMember m, String why) {
    members.remove(m.id);
    awaitingSync.remove(m.id);
    if (m.join != null) {
      m.join.complete(JoinAnswer.refused(MemberFault.UNKNOWN_MEMBER_ID, m.id));
      m.join = null;
    }
    if (m.sync != null) {
      m.sync.complete(SyncAnswer.refused(MemberFault.UNKNOWN_MEMBER_ID));
      m.sync = null;
    }
    log.info("Group {}: member {} {} ({} members)", host.groupName(), m.id, why, members.size());
  }

  private void afterRemoval(long now, String why) {
    if (members.isEmpty()) {
      becomeEmpty();
      return;
    }
    prepareRebalance(now, why);
    maybeCompleteJoin(now);
  }

  private JoinAnswer joined(ClassicMember m, boolean withMembers) {
    return new JoinAnswer(null, m.id, generation, protocolType, protocolName, leaderId, false,
        withMembers ? joinedMembers() : List.of());
  }

  private List<JoinedMember> joinedMembers() {
    List<JoinedMember> out = new ArrayList<>();
    for (ClassicMember m : members.values()) {
      ClassicProtocol p = m.protocol(protocolName);
      out.add(new JoinedMember(m.id, m.instanceId, p == null ? new byte[0] : p.metadata()));
    }
    return out;
  }

  private SyncAnswer synced(ClassicMember m) {
    return new SyncAnswer(null, protocolType, protocolName, m.assignment.bytes());
  }

  /** The member a request names: by instance id for a static member (an older id is fenced), else by id. */
  private ClassicMember member(String memberId, String instanceId, String caller) {
    ClassicMember m;
    if (instanceId != null) {
      m = byInstance(instanceId);
      if (m == null) {
        throw unknownMember(memberId);
      }
      if (!m.id.equals(memberId)) {
        throw fault(MemberFault.FENCED_INSTANCE_ID, "member '" + memberId + "' of static instance '" + instanceId
            + "' was replaced by a newer one");
      }
    } else {
      m = members.get(memberId);
      if (m == null) {
        throw unknownMember(memberId);
      }
    }
    if (!Ownership.allows(m.owner, caller)) {
      throw fault(MemberFault.GROUP_AUTHORIZATION_FAILED, "principal " + caller + " may not act as member '" + memberId
          + "' of group '" + host.groupName() + "': another principal made it");
    }
    return m;
  }

  private ClassicMember byInstance(String instanceId) {
    return members.values().stream().filter(m -> instanceId.equals(m.instanceId)).findFirst().orElse(null);
  }

  private String idOfInstance(String instanceId) {
    ClassicMember m = byInstance(instanceId);
    return m == null ? "" : m.id;
  }

  private void requireAlive() {
    if (state == ClassicState.DEAD) {
      throw fault(MemberFault.COORDINATOR_NOT_AVAILABLE, "the broker is stopping");
    }
  }

  private MemberFaultException unknownMember(String memberId) {
    return fault(MemberFault.UNKNOWN_MEMBER_ID, "member '" + memberId + "' is not in group '" + host.groupName()
        + "' (it left, timed out, or the broker restarted): join again");
  }

  private MemberFaultException illegalGeneration(int memberGeneration) {
    return fault(MemberFault.ILLEGAL_GENERATION, "generation " + memberGeneration + " of group '" + host.groupName()
        + "' is not the current one (" + generation + "): join again");
  }

  private static MemberFaultException fault(MemberFault fault, String message) {
    return new MemberFaultException(fault, message);
  }

  @Override
  public GroupProtocol protocol() {
    return GroupProtocol.CLASSIC;
  }

  @Override
  public int memberCount() {
    return members.size();
  }

  @Override
  public boolean hasPendingMembers() {
    return !pending.isEmpty();
  }

  @Override
  public GroupState state() {
    return switch (state) {
      case EMPTY, DEAD -> GroupState.EMPTY;
      case PREPARING_REBALANCE, COMPLETING_REBALANCE -> GroupState.REBALANCING;
      case STABLE -> GroupState.STABLE;
    };
  }

  @Override
  public String kafkaState() {
    return state.kafkaName;
  }

  @Override
  public String protocolType() {
    return protocolType;
  }

  @Override
  public String protocolName() {
    return protocolName;
  }

  /** The generation members join with now. */
  public int generation() {
    return generation;
  }

  /** The current leader's id, or null. */
  public String leaderId() {
    return leaderId;
  }

  @Override
  public Map<TopicPartition, String> owners() {
    Map<TopicPartition, String> out = new HashMap<>();
    members.values().forEach(m -> m.assignment.partitions().forEach(tp -> out.put(tp, m.id)));
    return out;
  }

  @Override
  public List<GroupView.Member> members() {
    List<GroupView.Member> out = new ArrayList<>();
    for (ClassicMember m : members.values()) {
      ClassicProtocol p = m.protocol(protocolName);
      out.add(new GroupView.Member(m.id, m.clientId, m.clientHost, m.assignment.partitions(), m.lastSeenMs, 0, true,
          m.instanceId, p == null ? null : p.metadata(), m.assignment.bytes()));
    }
    return out;
  }

  @Override
  public Set<String> subscribedTopics() {
    Set<String> out = new TreeSet<>();
    for (ClassicMember m : members.values()) {
      ClassicProtocol p = m.protocol(protocolName);
      (p == null ? m.protocols : List.of(p)).forEach(each -> out.addAll(each.topics()));
    }
    return out;
  }

  @Override
  public String toString() {
    return "classic group " + host.groupName() + " " + state.kafkaName + " generation " + generation + " members "
        + Arrays.toString(members.keySet().toArray());
  }
}
