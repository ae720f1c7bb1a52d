package io.brook.broker.groups;

import io.brook.broker.disk.DiskWrite;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.errors.Ownership;
import io.brook.broker.topics.Partition;
import io.brook.broker.topics.Topic;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An offset-mode group (Kafka's consumer group, eager protocol, broker-side assignment): members
 * join and heartbeat; a join, a leave or a silent member starts a rebalance; the rebalance completes
 * when every member has rejoined (having given up its partitions) or the rebalance timeout passed,
 * and then the generation grows by one and is journaled, so it survives a restart.
 *
 * <p>Kafka-protocol members (classic JoinGroup/SyncGroup, KIP-848 ConsumerGroupHeartbeat) are kept
 * by a {@link Membership} engine the group hosts instead: one protocol at a time, switched only while
 * the group has no members. Every protocol commits through the same {@link OffsetCommits}, so a
 * group's offsets are the same whichever door its consumers use.
 */
public final class OffsetGroup extends Group {
  private static final Logger log = LoggerFactory.getLogger(OffsetGroup.class);
  /** The first OffsetCommit version that carries a KIP-848 member epoch. */
  private static final int MEMBER_EPOCH_COMMIT_VERSION = 9;

  private final Map<String, OffsetMember> members = new LinkedHashMap<>();
  private final OffsetCommits commits;
  private Map<TopicPartition, String> owners = new HashMap<>();
  private Map<String, Integer> assignedPartitionCounts = Map.of();
  private GroupState state = GroupState.EMPTY;
  private int generation;
  private long rebalanceDeadlineMs;
  /** The broker is stopping: heartbeats are answered at once, none is held. */
  private boolean membersClosed;
  /** Kafka-protocol members, when a Kafka client ever joined since the start; null otherwise. */
  private Membership engine;
  private GroupProtocol protocol = GroupProtocol.NONE;
  /** A Protocol event was replayed: a later Generation event does not mean BROOK (old journals have none). */
  private boolean protocolJournaled;
  private final MembershipHost host = new Host();
  /** Since when the group has had no members (its creation, the broker's start, its last member's leaving). */
  private long emptySinceMs;
  /** Its last member left (not merely created empty): an implicit group with no offsets may go now. */
  private boolean membersLeft;
  private final PatternSubscriptions patterns = new PatternSubscriptions();

  OffsetGroup(String name, GroupContext ctx, GroupConfig config) {
    super(name, ctx, config);
    this.commits = new OffsetCommits(this);
    this.emptySinceMs = ctx.clock().millis();
  }

  @Override
  public GroupMode mode() {
    return GroupMode.OFFSET;
  }

  @Override
  public synchronized int memberCount() {
    return members.size() + kafkaMembers();
  }

  @Override
  public synchronized GroupState state() {
    return kafkaMembers() > 0 ? engine.state() : state;
  }

  /** The protocol its members speak, or last spoke. */
  @Override
  public synchronized GroupProtocol protocol() {
    return protocol;
  }

  /** Whether the Kafka engine speaks for the group: it has Kafka members, or no gRPC members and an engine. */
  private boolean kafkaServed() {
    return kafkaMembers() > 0 || (engine != null && members.isEmpty());
  }

  /** Brook's own members are consumers to Kafka's tools too (they show them with their lag). */
  @Override
  public synchronized String protocolType() {
    if (kafkaServed() && !engine.protocolType().isEmpty()) {
      return engine.protocolType();
    }
    return protocol == GroupProtocol.NONE ? "" : "consumer";
  }

  @Override
  public synchronized String kafkaState() {
    if (kafkaServed()) {
      return engine.kafkaState();
    }
    return switch (state) {
      case EMPTY -> "Empty";
      case REBALANCING -> "PreparingRebalance";
      case STABLE -> "Stable";
    };
  }

  private int kafkaMembers() {
    return engine == null ? 0 : engine.memberCount();
  }

  /**
   * The group's engine for {@code wanted}, made with {@code make} when the group has none or one of
   * another protocol with no members; when the other protocol's engine has members, {@code adopt} may
   * take them over (Kafka's online upgrade), else the join is refused. Callers use it under the group's
   * monitor.
   *
   * @param adopt makes the engine from one of another protocol that has members, or answers null when it cannot
   * @throws BrokerException INCONSISTENT_GROUP_MODE when gRPC members are in the group
   * @throws MemberFaultException INCONSISTENT_GROUP_PROTOCOL when members of another Kafka protocol are
   *     and {@code adopt} cannot take them
   */
  public synchronized <M extends Membership> M membership(Class<M> type, GroupProtocol wanted,
      Function<MembershipHost, M> make, BiFunction<MembershipHost, Membership, M> adopt) {
    if (!members.isEmpty()) {
      throw error(BrokerError.INCONSISTENT_GROUP_MODE, "group '" + name + "' has " + members.size()
          + " Brook (gRPC) member(s): a Kafka consumer cannot join it until they leave");
    }
    if (engine != null && engine.protocol() != wanted && engine.memberCount() > 0) {
      M adopted = adopt.apply(host, engine);
      if (adopted == null) {
        throw new MemberFaultException(MemberFault.INCONSISTENT_GROUP_PROTOCOL, "group '" + name + "' has "
            + engine.memberCount() + " member(s) of the " + engine.protocol().name().toLowerCase()
            + " protocol: a member of the " + wanted.name().toLowerCase() + " protocol cannot join it until they leave");
      }
      replace(adopted);
      return adopted;
    }
    if (engine == null || engine.protocol() != wanted || protocol != wanted) { // after gRPC members: a fresh one
      protocolIs(wanted);
      engine = make.apply(host);
      log.info("Group {}: now served by the {} protocol", name, wanted.name().toLowerCase());
    }
    return type.cast(engine);
  }

  /** As {@link #membership(Class, GroupProtocol, Function, BiFunction)}, never taking another protocol's members. */
  public synchronized <M extends Membership> M membership(Class<M> type, GroupProtocol wanted,
      Function<MembershipHost, M> make) {
    return membership(type, wanted, make, (h, other) -> null);
  }

  /** Another protocol's engine serves the members from now on. */
  private void replace(Membership next) { // the engines log why
    protocolIs(next.protocol());
    engine = next;
  }

  /** Journals the protocol its members speak when it changes, so describe and list show it after a restart. */
  private void protocolIs(GroupProtocol now) {
    if (protocol != now) {
      protocol = now; // first: a compaction this write triggers snapshots the new one
      write(List.of(new JournalEvent.Protocol(now)));
    }
  }

  /** The engine of this protocol when the group has it, else null. */
  public synchronized <M extends Membership> M membershipIfAny(Class<M> type) {
    return type.isInstance(engine) ? type.cast(engine) : null;
  }

  /**
   * Commits as Kafka's OffsetCommit: with no member and generation &lt; 0 from outside a group with
   * no members (Admin, kafka-consumer-groups --reset-offsets, assign() consumers); else as a member,
   * validated by the engine.
   *
   * @throws MemberFaultException when the caller may not commit now
   */
  public synchronized List<CommitOutcome> kafkaCommit(String memberId, String instanceId, int generationOrEpoch,
      List<CommitRequest> offsets, String caller) {
    boolean outsider = memberId.isEmpty() && instanceId == null && generationOrEpoch < 0;
    if (outsider) {
      if (memberCount() > 0) {
        throw new MemberFaultException(MemberFault.UNKNOWN_MEMBER_ID, "group '" + name + "' has " + memberCount()
            + " member(s): only a member (member id and generation) can commit now");
      }
    } else if (kafkaServed()) {
      engine.checkCommit(memberId, instanceId, generationOrEpoch, caller, offsets.stream().map(CommitRequest::tp).toList());
    } else if (!members.isEmpty()) {
      throw error(BrokerError.INCONSISTENT_GROUP_MODE, "group '" + name + "' has Brook (gRPC) members: "
          + "a Kafka consumer cannot commit as a member of it");
    } else {
      throw new MemberFaultException(MemberFault.UNKNOWN_MEMBER_ID, "member '" + memberId + "' is not in group '"
          + name + "' (it has no members: the broker restarted, or the member timed out): join again");
    }
    return commits.commit(offsets);
  }

  /**
   * {@link #kafkaCommit} of an OffsetCommit of this version. A KIP-848 member commits with v9 or later
   * (the first to carry a member epoch): Kafka refuses an older one (UNSUPPORTED_VERSION), after the
   * unknown-member check and before the epoch check, so Brook does in that order too.
   */
  public synchronized List<CommitOutcome> kafkaCommit(String memberId, String instanceId, int generationOrEpoch,
      List<CommitRequest> offsets, String caller, int offsetCommitVersion) {
    if (offsetCommitVersion < MEMBER_EPOCH_COMMIT_VERSION && kafkaServed() && engine.heartbeats(memberId)) {
      throw new MemberFaultException(MemberFault.UNSUPPORTED_VERSION, "member '" + memberId + "' of group '" + name
          + "' uses the consumer protocol (KIP-848): it must commit with OffsetCommit v"
          + MEMBER_EPOCH_COMMIT_VERSION + " or later, not v" + offsetCommitVersion);
    }
    return kafkaCommit(memberId, instanceId, generationOrEpoch, offsets, caller);
  }

  /**
   * Checks the member an OffsetFetch (v9+) names, as Kafka 4.3 does: in a group of the consumer
   * protocol (KIP-848) it must be a member at that epoch (UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH, the
   * commit's check); a classic or Brook group checks nothing (Kafka's classic groups do not either).
   * No member id and a negative epoch name no member (Admin, a consumer outside group management).
   *
   * @throws MemberFaultException when the member may not fetch
   */
  public synchronized void checkKafkaFetch(String memberId, int memberEpoch, String caller) {
    if ((memberId == null && memberEpoch < 0) || protocol != GroupProtocol.CONSUMER) {
      return;
    }
    String id = memberId == null ? "" : memberId; // Kafka fails with UNKNOWN_SERVER_ERROR there; Brook says why
    if (engine == null || engine.protocol() != GroupProtocol.CONSUMER) { // its members are gone (a restart)
      throw new MemberFaultException(MemberFault.UNKNOWN_MEMBER_ID, "member '" + id + "' is not in group '" + name
          + "' (it has no members: the broker restarted, or the member timed out): join again");
    }
    engine.checkCommit(id, null, memberEpoch, caller);
  }

  public synchronized int generation() {
    return generation;
  }

  /** Joins or rejoins; the future completes when the rebalance does. */
  public synchronized CompletableFuture<JoinResult> join(JoinRequest request) {
    return join(request, t -> true);
  }

  /**
   * Joins or rejoins; the future completes when the rebalance does.
   *
   * @param consumable the topics the caller may consume: its topic_pattern, if any, matches only those
   */
  public synchronized CompletableFuture<JoinResult> join(JoinRequest request, Predicate<String> consumable) {
    Pattern pattern = request.topicPattern().isEmpty() ? null : pattern(request.topicPattern());
    if (kafkaMembers() > 0) {
      throw error(BrokerError.INCONSISTENT_GROUP_MODE, "group '" + name + "' has " + kafkaMembers() + " Kafka ("
          + engine.protocol().name().toLowerCase() + " protocol) member(s): a gRPC member cannot join it until they leave");
    }
    protocolIs(GroupProtocol.BROOK);
    long now = ctx.clock().millis();
    OffsetMember m;
    OffsetMember holder = request.memberId().isEmpty() && !request.instanceId().isEmpty()
        ? StaticMembers.holder(members.values(), request.instanceId()) : null;
    if (holder != null) {
      m = takeOver(holder, request);
    } else if (request.memberId().isEmpty()) {
      String prefix = !request.instanceId().isEmpty() ? request.instanceId()
          : request.clientId().isEmpty() ? "member" : request.clientId();
      m = new OffsetMember(prefix + "-" + UUID.randomUUID(), request.owner());
      m.instanceId = request.instanceId().isEmpty() ? null : request.instanceId();
      members.put(m.id, m);
      log.info("Group {}: member {} joined ({} members)", name, m.id, members.size());
    } else {
      m = member(request.memberId(), request.owner());
      StaticMembers.checkSameInstance(m, request, name);
      if (m.pendingJoin != null) { // a retried join replaces the earlier one
        m.pendingJoin.completeExceptionally(error(BrokerError.ILLEGAL_GENERATION,
            "superseded by a newer JoinGroup of member " + m.id));
      }
    }
    boolean asIs = m.instanceId != null && StaticMembers.answerAtOnce(state, m, request);
    m.clientId = request.clientId();
    m.address = request.address();
    if (!asIs) { // a static member back as it was keeps what its pattern matched
      m.topics = List.copyOf(new TreeSet<>(request.topics()));
    }
    m.topicPattern = pattern; // its topics are resolved when the rebalance completes
    m.consumable = consumable;
    m.sessionTimeoutMs = request.sessionTimeoutMs();
    m.rebalanceTimeoutMs = request.rebalanceTimeoutMs();
    m.cooperative = request.cooperative();
    m.reportedOwned = CooperativeHandover.reported(request.cooperative(), request.owned(), m.delivered);
    m.lastHeartbeatMs = now;
    if (asIs) {
      return CompletableFuture.completedFuture(staticRejoined(m));
    }
    m.pendingJoin = new CompletableFuture<>();
    CompletableFuture<JoinResult> answer = m.pendingJoin;
    startRebalance(now, "member " + m.id + " joined");
    maybeComplete(now);
    return answer;
  }

  /** A join's topic_pattern, refused (INVALID_REQUEST) when it gives up on a topic's name: it would on every check. */
  private Pattern pattern(String regex) {
    try {
      return TopicPatterns.compile(regex, topicNames());
    } catch (IllegalArgumentException e) {
      throw error(BrokerError.INVALID_REQUEST, "topic_pattern '" + regex + "' is refused: " + e.getMessage());
    }
  }

  /** A static member back under a new id (a restart): its holder is fenced, its partitions are the new one's. */
  private OffsetMember takeOver(OffsetMember holder, JoinRequest request) {
    OffsetMember m = StaticMembers.replace(holder, request, name);
    members.remove(holder.id);
    members.put(m.id, m);
    owners.replaceAll((tp, owner) -> owner.equals(holder.id) ? m.id : owner); // sticky in the next rebalance
    log.info("Group {}: static member {} is back as {} (was {})", name, m.instanceId, m.id, holder.id);
    return m;
  }

  /** A static member's join in a stable group, its subscription unchanged: this generation and its partitions. */
  private JoinResult staticRejoined(OffsetMember m) {
    m.answered = true;
    m.delivered = m.assignment;
    m.heldSince = CooperativeHandover.heldSince(Map.of(), Set.copyOf(m.assignment), m.assignment, Set.of(), generation);
    log.info("Group {}: static member {} ({}) rejoined generation {} without a rebalance", name, m.instanceId, m.id,
        generation);
    List<String> unknown = m.topics.stream().filter(t -> !assignedPartitionCounts.containsKey(t)).toList();
    return new JoinResult(m.id, generation, m.assignment, heartbeatInterval(m), unknown, m.topics);
  }

  /**
   * The caller went away before the rebalance completed: it is no longer waiting. A member whose
   * first join this was is removed at once: its client never learnt its id, so it can neither
   * heartbeat nor leave, and the group would otherwise wait for it until its session timed out.
   */
  public synchronized void joinCancelled(CompletableFuture<JoinResult> join) {
    OffsetMember gone = null;
    for (OffsetMember m : members.values()) {
      if (m.pendingJoin == join) {
        m.pendingJoin = null;
        if (!m.answered) {
          gone = m;
        }
      }
    }
    if (gone != null) {
      members.remove(gone.id);
      log.info("Group {}: member {} went away before its first join was answered ({} members)", name, gone.id,
          members.size());
      membershipShrank(ctx.clock().millis(), "member " + gone.id + " went away while joining");
    }
  }

  /**
   * Keeps the member alive. With {@code maxWaitMs > 0} the answer is held until a rebalance starts
   * or that long passed (at most the member's heartbeat interval, so its session cannot run out
   * meanwhile), so that the member hears of a rebalance at once rather than at its next heartbeat.
   *
   * @param caller the caller's principal (null with auth off)
   * @return completes with true when a rebalance is under way: the member must rejoin
   */
  public synchronized CompletableFuture<Boolean> heartbeat(String memberId, int memberGeneration, long maxWaitMs,
      String caller) {
    OffsetMember m = member(memberId, caller);
    long now = ctx.clock().millis();
    m.lastHeartbeatMs = now;
    if (state == GroupState.REBALANCING) {
      return CompletableFuture.completedFuture(true);
    }
    if (memberGeneration != generation) {
      throw illegalGeneration(memberGeneration);
    }
    m.answerHeldHeartbeat(false); // a newer heartbeat supersedes it
    if (maxWaitMs <= 0 || membersClosed) {
      return CompletableFuture.completedFuture(false);
    }
    m.heldHeartbeat = new CompletableFuture<>();
    m.heldUntilMs = now + Math.min(maxWaitMs, heartbeatInterval(m));
    return m.heldHeartbeat;
  }

  /** The caller of a held heartbeat went away: nothing to answer. */
  public synchronized void heartbeatCancelled(CompletableFuture<Boolean> heartbeat) {
    for (OffsetMember m : members.values()) {
      if (m.heldHeartbeat == heartbeat) {
        m.heldHeartbeat = null;
      }
    }
  }

  public synchronized void leave(String memberId, String caller) {
    OffsetMember m = member(memberId, caller);
    members.remove(memberId);
    if (m.pendingJoin != null) {
      m.pendingJoin.completeExceptionally(unknownMember(memberId));
    }
    if (m.heldHeartbeat != null) {
      m.heldHeartbeat.completeExceptionally(unknownMember(memberId));
      m.heldHeartbeat = null;
    }
    log.info("Group {}: member {} left ({} members)", name, memberId, members.size());
    membershipShrank(ctx.clock().millis(), "member " + memberId + " left");
  }

  /** @param caller the caller's principal (null with auth off): a member commits only as itself */
  public synchronized List<CommitOutcome> commit(String memberId, int memberGeneration, List<CommitRequest> offsets,
      String caller) {
    if (memberId.isEmpty() && memberGeneration == 0) {
      if (memberCount() > 0) {
        throw error(BrokerError.GROUP_NOT_EMPTY, "group '" + name + "' has " + memberCount()
            + " members: only a member (member_id and generation) can commit now");
      }
    } else {
      OffsetMember m = member(memberId, caller);
      boolean keptSince = m.cooperative && memberGeneration < generation
          && CooperativeHandover.mayCommitAt(memberGeneration, m.heldSince, offsets.stream().map(CommitRequest::tp).toList());
      if (memberGeneration != generation && !keptSince) {
        throw illegalGeneration(memberGeneration);
      }
    }
    return commits.commit(offsets);
  }

  /**
   * Forgets committed offsets (Kafka's OffsetDelete): refused while gRPC members are in, and per
   * partition for a topic a Kafka member subscribes to (it would start over from its reset policy
   * under the member's feet). A partition with nothing committed is no error.
   */
  public synchronized List<OffsetDeletion> deleteOffsets(List<TopicPartition> partitions) {
    if (!members.isEmpty()) {
      throw error(BrokerError.GROUP_NOT_EMPTY, "group '" + name + "' has " + members.size()
          + " Brook (gRPC) member(s): its offsets can be deleted once they leave");
    }
    ctx.disk().check(DiskWrite.GROUP_RESET);
    // An operator's act, not a member leaving: the group stays, as in Kafka, until the group is deleted
    // or its offsets' retention passes (else a --delete right after --delete-offsets finds no group).
    membersLeft = false;
    Set<String> subscribed = kafkaMembers() > 0 ? engine.subscribedTopics() : Set.of();
    List<OffsetDeletion> out = new ArrayList<>();
    List<JournalEvent> events = new ArrayList<>();
    List<Integer> forgotten = new ArrayList<>();
    for (TopicPartition tp : partitions) {
      if (subscribed.contains(tp.topic())) {
        out.add(new OffsetDeletion(tp, new MemberFaultException(MemberFault.GROUP_SUBSCRIBED_TO_TOPIC, "a member of group '"
            + name + "' subscribes to topic " + tp.topic())));
        continue;
      }
      try {
        ctx.topics().get(tp.topic()).partition(tp.partition());
      } catch (BrokerException e) {
        out.add(new OffsetDeletion(tp, e));
        continue;
      }
      Keyed k = keyed(tp);
      if (k != null) {
        forgotten.add(k.key());
        forgetKey(k, events);
      }
      out.add(new OffsetDeletion(tp, null));
    }
    commits.forget(forgotten); // before the append, as a commit: an append that compacts snapshots the state
    write(events);
    if (!events.isEmpty()) {
      log.info("Group {}: committed offsets of {} partition(s) deleted", name, forgotten.size());
    }
    return out;
  }

  /** Every committed offset of the group. */
  public synchronized Map<TopicPartition, CommittedOffset> committed() {
    return commits.all();
  }

  /** Sets offsets while the group is empty (reset). */
  synchronized void setOffsets(Map<Partition, Long> offsets) {
    requireEmpty("reset the offsets of");
    commits.set(offsets);
  }

  private void emptied(long now) {
    emptySinceMs = now;
    membersLeft = true;
  }

  /**
   * Whether the group may go now: it has no members, and either a Kafka join or commit created it,
   * its last member left and it has no offsets (a console consumer's throwaway group), or nothing
   * happened in it (members, commits) for {@code retentionMs} (Kafka's offsets.retention.minutes).
   */
  synchronized boolean expired(long now, long retentionMs) {
    if (memberCount() > 0 || (engine != null && engine.hasPendingMembers())) {
      return false;
    }
    if (implicit && membersLeft && commits.isEmpty()) {
      return true;
    }
    return now - Math.max(commits.lastCommitMs(), emptySinceMs) >= retentionMs;
  }

  synchronized void requireEmpty(String action) {
    if (memberCount() > 0) {
      throw error(BrokerError.GROUP_NOT_EMPTY, "cannot " + action + " group '" + name + "' while it has "
          + memberCount() + " member(s): stop its consumers first (or wait for their session timeout)");
    }
  }

  @Override
  synchronized void tick(long now) {
    if (engine != null) {
      engine.tick(now);
    }
    List<String> expired = new ArrayList<>();
    for (OffsetMember m : members.values()) {
      if (m.heldHeartbeat != null && now >= m.heldUntilMs) {
        // Its call was open all along: the member is alive until now, however late this tick runs
        // (the timer thread may stall), and its next heartbeat follows this answer.
        m.lastHeartbeatMs = now;
        m.answerHeldHeartbeat(false);
      }
      if (m.pendingJoin == null && m.heldHeartbeat == null && now - m.lastHeartbeatMs > m.sessionTimeoutMs) {
        expired.add(m.id);
      }
    }
    for (String id : expired) {
      members.remove(id);
      log.info("Group {}: member {} removed, no heartbeat within its session timeout ({} members)", name, id,
          members.size());
    }
    if (!expired.isEmpty()) {
      membershipShrank(now, expired.size() + " member(s) timed out");
    }
    if (state == GroupState.REBALANCING && now >= rebalanceDeadlineMs) {
      complete(now);
    }
    if (state == GroupState.STABLE && !partitionCountsNow().equals(assignedPartitionCounts)) {
      startRebalance(now, "the partitions of its topics changed");
    }
    if (state == GroupState.STABLE && patterns.matchesChanged(members.values(), this::topicNames, now)) {
      startRebalance(now, "a topic its members' patterns match was created or deleted");
    }
  }

  private void membershipShrank(long now, String why) {
    if (members.isEmpty()) {
      state = GroupState.EMPTY;
      owners = new HashMap<>();
      emptied(now);
      return;
    }
    startRebalance(now, why);
    maybeComplete(now);
  }

  private void startRebalance(long now, String why) {
    if (state == GroupState.REBALANCING) {
      return;
    }
    state = GroupState.REBALANCING;
    long timeout = members.values().stream().mapToLong(m -> m.rebalanceTimeoutMs).max().orElse(0);
    rebalanceDeadlineMs = now + timeout;
    log.info("Group {}: rebalancing (generation {}): {}", name, generation, why);
    members.values().forEach(m -> m.answerHeldHeartbeat(true)); // the others hear of it now, not at their next heartbeat
  }

  private void maybeComplete(long now) {
    if (state == GroupState.REBALANCING && members.values().stream().allMatch(m -> m.pendingJoin != null)) {
      complete(now);
    }
  }

  /** Ends a rebalance: members that did not rejoin are removed, the rest get a new generation. */
  private void complete(long now) {
    if (!ctx.disk().metadataAllowed()) {
      return; // the new generation must be journaled: the joins wait until space is back (the tick retries)
    }
    members.values().removeIf(m -> {
      if (m.pendingJoin == null && m.instanceId == null) { // a static member away keeps its place until its session ends
        log.info("Group {}: member {} removed, it did not rejoin within the rebalance timeout", name, m.id);
        return true;
      }
      return false;
    });
    if (members.isEmpty()) {
      state = GroupState.EMPTY;
      owners = new HashMap<>();
      emptied(now);
      return;
    }
    generation++;
    write(List.of(new JournalEvent.Generation(generation)));
    PatternSubscriptions.resolve(members.values(), this::topicNames);
    Map<String, List<String>> subscriptions = new TreeMap<>();
    members.values().forEach(m -> subscriptions.put(m.id, m.topics));
    assignedPartitionCounts = partitionCountsNow();
    Map<String, List<TopicPartition>> target = Assignor.assign(subscriptions, assignedPartitionCounts, owners);
    Map<String, Set<TopicPartition>> owned = new HashMap<>();
    members.values().forEach(m -> owned.put(m.id, m.pendingJoin == null
        ? CooperativeHandover.owned(m.cooperative, m.delivered, m.delivered) // away: it holds what it was last told
        : CooperativeHandover.owned(m.cooperative, m.reportedOwned, m.delivered)));
    CooperativeHandover.Plan plan = CooperativeHandover.plan(target, owned);
    owners = new HashMap<>(); // the target: the next rebalance hands a withheld partition to whom it was meant for
    target.forEach((id, tps) -> tps.forEach(tp -> owners.put(tp, id)));
    state = GroupState.STABLE;
    for (OffsetMember m : members.values()) {
      m.assignment = plan.answers().get(m.id);
      m.releasing = Set.copyOf(plan.releasing().get(m.id));
      m.heldSince = CooperativeHandover.heldSince(m.heldSince, owned.get(m.id), m.assignment, m.releasing, generation);
      if (m.pendingJoin == null) { // a static member away (restarting): its partitions wait for it
        log.info("Group {}: static member {} ({}) did not rejoin: it keeps its place until its session ends", name,
            m.instanceId, m.id);
        continue;
      }
      m.delivered = m.assignment;
      m.lastHeartbeatMs = now;
      CompletableFuture<JoinResult> join = m.pendingJoin;
      m.pendingJoin = null;
      m.answered = true;
      List<String> unknown = m.topics.stream().distinct().filter(t -> !assignedPartitionCounts.containsKey(t)).toList();
      join.complete(new JoinResult(m.id, generation, m.assignment, heartbeatInterval(m), unknown,
          m.topics.stream().distinct().toList()));
    }
    log.info("Group {}: generation {} with {} member(s), {} partitions assigned", name, generation, members.size(),
        owners.size());
    if (plan.handoverPending()) {
      startRebalance(now, "cooperative members release partitions moved to others");
    }
  }

  /** A third of the member's session timeout, at most group.heartbeat.interval.ms. */
  private int heartbeatInterval(OffsetMember m) {
    return (int) Math.min(ctx.maxHeartbeatIntervalMs(), Math.max(1, m.sessionTimeoutMs / 3));
  }

  /** Every existing topic's name (a pattern subscription matches among them). */
  private List<String> topicNames() {
    return ctx.topics().list().stream().map(Topic::name).toList();
  }

  private Map<String, Integer> partitionCountsNow() {
    Map<String, Integer> counts = new TreeMap<>();
    for (OffsetMember m : members.values()) {
      for (String t : m.topics) {
        try {
          counts.put(t, ctx.topics().get(t).partitionCount());
        } catch (BrokerException e) {
          // Not created yet: the member gets its partitions once it exists.
        }
      }
    }
    return counts;
  }

  @Override
  public synchronized GroupView describe() {
    List<GroupView.Member> ms = new ArrayList<>();
    for (OffsetMember m : members.values()) {
      ms.add(new GroupView.Member(m.id, m.clientId, m.address, m.assignment, m.lastHeartbeatMs, 0, true, m.instanceId,
          null, null));
    }
    boolean kafka = kafkaServed();
    Map<TopicPartition, String> owners = kafka ? engine.owners() : CooperativeHandover.holders(this.owners, members.values());
    if (kafka) {
      ms.addAll(engine.members());
    }
    Map<TopicPartition, GroupView.PartitionView> parts = new TreeMap<>();
    Map<TopicPartition, CommittedOffset> committed = committed();
    TreeSet<TopicPartition> all = new TreeSet<>(committed.keySet());
    all.addAll(owners.keySet());
    for (TopicPartition tp : all) {
      CommittedOffset co = committed.get(tp);
      long start = -1;
      long end = -1;
      try {
        Partition p = ctx.topics().get(tp.topic()).partition(tp.partition());
        start = p.startOffset();
        end = p.endOffset();
      } catch (BrokerException e) {
        // The topic went away: shown without offsets.
      }
      parts.put(tp, new GroupView.PartitionView(tp, co == null ? -1 : co.offset(), start, end,
          owners.getOrDefault(tp, ""), 0, 0, 0, 0));
    }
    return new GroupView(name, mode(), protocol, protocolType(), kafka ? engine.protocolName() : "", state(),
        kafkaState(), generation, Map.of(), ms, List.copyOf(parts.values()));
  }

  @Override
  protected void replay(JournalEvent event) {
    if (event instanceof JournalEvent.Generation g) {
      generation = g.generation();
      if (!protocolJournaled) {
        protocol = GroupProtocol.BROOK; // a journal from before the Protocol event: only gRPC members had generations
      }
    } else if (event instanceof JournalEvent.Protocol p) {
      protocol = p.protocol();
      protocolJournaled = true;
    } else {
      commits.replay(event);
    }
  }

  @Override
  protected void afterReplay() {}

  @Override
  protected List<JournalEvent> snapshotState() {
    List<JournalEvent> events = new ArrayList<>();
    events.add(new JournalEvent.Generation(generation));
    events.add(new JournalEvent.Protocol(protocol));
    commits.snapshot(events);
    return events;
  }

  @Override
  synchronized void topicDeleted(Topic topic) {
    commits.forget(forgetTopic(topic));
    if (engine != null) {
      engine.topicsChanged(ctx.clock().millis());
    }
    if (members.values().stream().anyMatch(m -> m.topics.contains(topic.name()))) {
      startRebalance(ctx.clock().millis(), "topic " + topic.name() + " was deleted");
    }
  }

  @Override
  synchronized void closeMembers(String why) {
    membersClosed = true;
    if (engine != null) {
      engine.close(why);
    }
    for (OffsetMember m : members.values()) {
      if (m.pendingJoin != null) {
        m.pendingJoin.completeExceptionally(new BrokerException(BrokerError.UNKNOWN_MEMBER_ID, why));
      }
      m.answerHeldHeartbeat(false); // the shutdown need not wait for it; the next heartbeat finds the broker gone
    }
  }

  /** What the Kafka engines see of the group; called under its monitor (the engines' own calls are). */
  private final class Host implements MembershipHost {
    @Override
    public String groupName() {
      return name;
    }

    @Override
    public long nowMs() {
      return ctx.clock().millis();
    }

    @Override
    public long minSessionTimeoutMs() {
      return ctx.minSessionTimeoutMs();
    }

    @Override
    public long maxSessionTimeoutMs() {
      return ctx.maxSessionTimeoutMs();
    }

    @Override
    public int generation() {
      return generation;
    }

    @Override
    public boolean journalGeneration(int next) {
      if (!ctx.disk().metadataAllowed()) {
        return false;
      }
      write(List.of(new JournalEvent.Generation(next)));
      generation = next;
      return true;
    }

    @Override
    public Map<String, Integer> partitionCounts(java.util.Collection<String> topics) {
      Map<String, Integer> counts = new TreeMap<>();
      for (String t : topics) {
        if (t.equals(InternalTopic.CONSUMER_OFFSETS.name())) {
          counts.put(t, InternalTopic.CONSUMER_OFFSETS.partitionCount());
          continue;
        }
        try {
          counts.put(t, ctx.topics().get(t).partitionCount());
        } catch (BrokerException e) {
          // Not created yet: no partitions to assign.
        }
      }
      return counts;
    }

    @Override
    public Optional<UUID> topicId(String topic) {
      if (topic.equals(InternalTopic.CONSUMER_OFFSETS.name())) {
        return Optional.of(InternalTopic.CONSUMER_OFFSETS.id());
      }
      try {
        return Optional.of(ctx.topics().get(topic).id());
      } catch (BrokerException e) {
        return Optional.empty();
      }
    }

    @Override
    public Optional<String> topicName(UUID id) {
      if (id.equals(InternalTopic.CONSUMER_OFFSETS.id())) {
        return Optional.of(InternalTopic.CONSUMER_OFFSETS.name());
      }
      return ctx.topics().list().stream().filter(t -> t.id().equals(id)).map(Topic::name).findFirst();
    }

    /** Brook's topics and Kafka's __consumer_offsets, which a Kafka regex may match (as on Kafka). */
    @Override
    public List<String> topicNames() {
      List<String> names = new ArrayList<>();
      ctx.topics().list().forEach(t -> names.add(t.name()));
      names.add(InternalTopic.CONSUMER_OFFSETS.name());
      return names;
    }

    @Override
    public void membershipEmptied() {
      log.info("Group {}: its last member left", name);
      emptied(ctx.clock().millis());
    }

    @Override
    public void replaceMembership(Function<MembershipHost, Membership> next) {
      replace(next.apply(this));
    }
  }

  /** The member with this id, if the caller made it. */
  private OffsetMember member(String memberId, String caller) {
    OffsetMember m = members.get(memberId);
    if (m == null) {
      OffsetMember replacer = StaticMembers.replacerOf(members.values(), memberId);
      throw replacer != null ? StaticMembers.replaced(name, memberId, replacer) : unknownMember(memberId);
    }
    Ownership.check(m.owner, caller, "member '" + memberId + "' of group '" + name + "'");
    return m;
  }

  private BrokerException unknownMember(String memberId) {
    return error(BrokerError.UNKNOWN_MEMBER_ID, "member '" + memberId + "' is not in group '" + name
        + "' (it left, timed out, or the broker restarted): join again with an empty member_id");
  }

  private BrokerException illegalGeneration(int memberGeneration) {
    return error(BrokerError.ILLEGAL_GENERATION, "generation " + memberGeneration + " of group '" + name
        + "' is stale (current: " + generation + "): the member missed a rebalance; join again");
  }
}
