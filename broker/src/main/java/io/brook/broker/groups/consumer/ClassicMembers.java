package io.brook.broker.groups.consumer;

import io.brook.broker.groups.MemberFault;
import io.brook.broker.groups.MemberFaultException;
import io.brook.broker.groups.TopicPartition;
import io.brook.broker.groups.classic.ClassicJoin;
import io.brook.broker.groups.classic.ClassicProtocol;
import io.brook.broker.groups.classic.ClassicSync;
import io.brook.broker.groups.classic.JoinAnswer;
import io.brook.broker.groups.classic.MemberIdentity;
import io.brook.broker.groups.classic.SyncAnswer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Classic consumers (JoinGroup, SyncGroup, Heartbeat, LeaveGroup) inside a KIP-848 group, as Kafka
 * serves them: the broker assigns them too. A JoinGroup is answered at once with the member's epoch
 * as its generation and no leader; the SyncGroup hands it the partitions the broker gave it; a
 * heartbeat answers REBALANCE_IN_PROGRESS when it must join again, to give partitions up (it lists
 * what it still owns in its subscription) or to get new ones. Runs under the group's monitor.
 */
public final class ClassicMembers {
  private static final Logger log = LoggerFactory.getLogger(ClassicMembers.class);

  private final ConsumerMembership group;
  /** The join being served took a KIP-848 static member's place. */
  private boolean replacedKip848;

  ClassicMembers(ConsumerMembership group) {
    this.group = group;
  }

  /**
   * Joins or rejoins at once.
   *
   * @throws MemberFaultException when refused
   */
  public JoinAnswer join(ClassicJoin r) {
    requireOpen();
    long now = group.host.nowMs();
    if (r.sessionTimeoutMs() < group.host.minSessionTimeoutMs() || r.sessionTimeoutMs() > group.host.maxSessionTimeoutMs()) {
      throw fault(MemberFault.INVALID_SESSION_TIMEOUT, "session timeout " + r.sessionTimeoutMs()
          + " ms is outside the broker's bounds [" + group.host.minSessionTimeoutMs() + ", "
          + group.host.maxSessionTimeoutMs() + "] (group.min/max.session.timeout.ms)");
    }
    if (group.settings.migration() == MigrationPolicy.DISABLED) {
      throw fault(MemberFault.INCONSISTENT_GROUP_PROTOCOL, "group '" + group.host.groupName() + "' is a KIP-848 "
          + "consumer group and group.consumer.migration.policy is disabled: a classic consumer cannot join it");
    }
    String id = r.memberId().isEmpty() ? (r.instanceId() != null ? r.instanceId() : r.clientId()) + "-"
        + UUID.randomUUID() : r.memberId();
    checkProtocols(r, id);
    if (r.memberId().isEmpty() && r.requireKnownMemberId()) {
      return JoinAnswer.refused(MemberFault.MEMBER_ID_REQUIRED, id); // as a classic group: join again with it
    }
    replacedKip848 = false;
    ConsumerMember m = r.instanceId() != null ? staticJoin(r, id, now) : group.members.get(id);
    if (m != null && m.classic == null && !replacedKip848) { // a KIP-848 member's id: not a classic member
      throw unknown(id);
    }
    if (m == null) {
      m = new ConsumerMember(id, r.owner());
      m.instanceId = r.instanceId();
      group.members.put(id, m);
      group.changed = true;
      log.info("Group {}: classic member {} joined ({} members)", group.host.groupName(), id, group.members.size());
    } else {
      group.checkOwner(m, r.owner());
    }
    ClassicProtocol first = r.protocols().get(0);
    List<String> topics = List.copyOf(new TreeSet<>(first.topics()));
    if (!topics.equals(m.topicNames)) {
      m.topicNames = topics;
      group.changed = true;
    }
    m.classic = new ClassicInfo(r.sessionTimeoutMs(), r.protocols());
    m.rebalanceTimeoutMs = r.rebalanceTimeoutMs();
    m.clientId = r.clientId();
    m.clientHost = r.clientHost();
    m.lastHeartbeatMs = now;
    group.retargetForJoin(m, now);
    ConsumerMember self = m;
    MemberAssignment before = m.assignment;
    m.assign(Reconciler.rejoin(before, group.targetEpoch, group.target.getOrDefault(m.id, Set.of()),
        Set.copyOf(first.owned()), tp -> group.heldByOther(self, tp)));
    if (m.assignment.state() == MemberState.UNREVOKED_PARTITIONS && before.state() != MemberState.UNREVOKED_PARTITIONS) {
      m.revokeDeadlineMs = now + m.rebalanceTimeoutMs;
    }
    m.classic.rejoinDeadlineMs = 0;
    JoinAnswer answer = new JoinAnswer(null, m.id, m.assignment.epoch(), "consumer", first.name(), "", false,
        List.of());
    if (replacedKip848 && group.settings.migration().downgrades()) {
      group.handBackIfOnlyClassic(); // it took the last KIP-848 member's place: the group is classic again
    }
    return answer;
  }

  /** A static member: the same one again, or a new instance that takes over the old one's place. */
  private ConsumerMember staticJoin(ClassicJoin r, String id, long now) {
    ConsumerMember holder = group.members.values().stream().filter(o -> r.instanceId().equals(o.instanceId))
        .findFirst().orElse(null);
    if (holder == null) {
      return null;
    }
    if (holder.id.equals(id)) {
      if (holder.classic == null) {
        throw unknown(id);
      }
      return holder;
    }
    if (!r.memberId().isEmpty()) {
      throw fault(MemberFault.FENCED_INSTANCE_ID, "member '" + r.memberId() + "' of static instance '" + r.instanceId()
          + "' was replaced by a newer one");
    }
    group.checkOwner(holder, r.owner());
    // A new instance of a static member (of either protocol, as in Kafka): it takes over the old one's
    // partitions, no rebalance.
    ConsumerMember m = new ConsumerMember(id, holder.owner);
    m.instanceId = holder.instanceId;
    MemberAssignment a = holder.assignment;
    m.takeOver(holder, holder.leftStatic() // back from -2: its epoch before it left
        ? new MemberAssignment(a.previousEpoch(), a.previousEpoch(), a.state(), a.assigned(), a.revoking()) : a);
    m.topicNames = holder.topicNames;
    m.classic = holder.classic;
    replacedKip848 = holder.classic == null;
    group.members.remove(holder.id);
    group.members.put(id, m);
    group.moveTarget(holder.id, id);
    log.info("Group {}: static member {} is back as {}", group.host.groupName(), r.instanceId(), id);
    return m;
  }

  /** A consumer protocol, and (when there are classic members) an assignor each of them offers too, as Kafka checks. */
  private void checkProtocols(ClassicJoin r, String id) {
    if (!"consumer".equals(r.protocolType()) || r.protocols().isEmpty()) {
      throw fault(MemberFault.INCONSISTENT_GROUP_PROTOCOL, "group '" + group.host.groupName() + "' is a KIP-848 "
          + "consumer group: a classic member must join with protocol type 'consumer', not '" + r.protocolType() + "'");
    }
    for (ConsumerMember o : group.members.values()) {
      if (o.classic != null && !o.id.equals(id) && r.protocols().stream().noneMatch(p -> o.classic.offers(p.name()))) {
        throw fault(MemberFault.INCONSISTENT_GROUP_PROTOCOL, "the member offers none of the assignors of classic member "
            + o.id + " of group '" + group.host.groupName() + "'");
      }
    }
  }

  /**
   * Its assignment, at once.
   *
   * @throws MemberFaultException when refused
   */
  public SyncAnswer sync(ClassicSync s) {
    requireOpen();
    ConsumerMember m = member(s.memberId(), s.instanceId(), s.owner());
    checkGeneration(m, s.generation());
    if (s.protocolType() != null && !"consumer".equals(s.protocolType())
        || s.protocolName() != null && !s.protocolName().equals(m.classic.protocolName())) {
      throw fault(MemberFault.INCONSISTENT_GROUP_PROTOCOL, "member '" + m.id + "' joined with 'consumer'/'"
          + m.classic.protocolName() + "', not '" + s.protocolType() + "'/'" + s.protocolName() + "'");
    }
    if (group.targetEpoch > m.assignment.epoch() && m.assignment.state() != MemberState.UNREVOKED_PARTITIONS) {
      throw toRejoin(m);
    }
    m.lastHeartbeatMs = group.host.nowMs();
    return SyncAnswer.assignedByBroker(m.classic.protocolName(), List.copyOf(new TreeSet<>(m.assignment.assigned())),
        m.classic.subscription());
  }

  /**
   * Keeps it alive; REBALANCE_IN_PROGRESS when it must join again: the epoch moved on, it has
   * partitions to give up, or partitions it waits for are free now.
   *
   * @throws MemberFaultException UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS
   */
  public void heartbeat(String memberId, String instanceId, int generation, String caller) {
    requireOpen();
    ConsumerMember m = member(memberId, instanceId, caller);
    checkGeneration(m, generation);
    m.lastHeartbeatMs = group.host.nowMs();
    if (m.assignment.epoch() < group.targetEpoch || m.assignment.state() == MemberState.UNREVOKED_PARTITIONS
        || m.assignment.state() == MemberState.UNRELEASED_PARTITIONS && canTakeMore(m)) {
      throw toRejoin(m);
    }
  }

  /**
   * Whether every partition of its target it does not have yet is free now, as Kafka waits: each
   * rejoin of an eager member stops its consumption, so it rejoins once, for all of them.
   */
  private boolean canTakeMore(ConsumerMember m) {
    for (TopicPartition tp : group.target.getOrDefault(m.id, Set.of())) {
      if (!m.assignment.assigned().contains(tp) && group.heldByOther(m, tp)) {
        return false;
      }
    }
    return true;
  }

  /** Members leave, by id or (static members) by instance id; per member, null or why not. */
  public List<MemberFault> leave(List<MemberIdentity> leaving, String caller) {
    requireOpen();
    long now = group.host.nowMs();
    List<MemberFault> out = new ArrayList<>();
    for (MemberIdentity who : leaving) {
      try {
        ConsumerMember m = who.instanceId() != null && who.memberId().isEmpty()
            ? member(idOfInstance(who.instanceId()), who.instanceId(), caller)
            : member(who.memberId(), who.instanceId(), caller);
        group.remove(m, now, "left");
        out.add(null);
      } catch (MemberFaultException e) {
        out.add(e.fault());
      }
    }
    return out;
  }

  private String idOfInstance(String instanceId) {
    return group.members.values().stream().filter(m -> instanceId.equals(m.instanceId)).map(m -> m.id).findFirst()
        .orElse("");
  }

  private MemberFaultException toRejoin(ConsumerMember m) {
    if (m.classic.rejoinDeadlineMs == 0) {
      m.classic.rejoinDeadlineMs = group.host.nowMs() + m.rebalanceTimeoutMs;
    }
    return fault(MemberFault.REBALANCE_IN_PROGRESS, "group '" + group.host.groupName() + "' has a new assignment "
        + "(epoch " + group.targetEpoch + "): join again");
  }

  private void checkGeneration(ConsumerMember m, int generation) {
    if (generation != m.assignment.epoch()) {
      throw fault(MemberFault.ILLEGAL_GENERATION, "generation " + generation + " of member '" + m.id
          + "' is not its current one (" + m.assignment.epoch() + "): join again");
    }
  }

  /** A classic member the request names: by instance id for a static member (an older id is fenced), else by id. */
  private ConsumerMember member(String memberId, String instanceId, String caller) {
    ConsumerMember m;
    if (instanceId != null) {
      m = group.members.values().stream().filter(o -> instanceId.equals(o.instanceId)).findFirst().orElse(null);
      if (m != null && !m.id.equals(memberId)) {
        throw fault(MemberFault.FENCED_INSTANCE_ID, "member '" + memberId + "' of static instance '" + instanceId
            + "' was replaced by a newer one");
      }
    } else {
      m = group.members.get(memberId);
    }
    if (m == null || m.classic == null) { // a KIP-848 member speaks ConsumerGroupHeartbeat only
      throw unknown(memberId);
    }
    group.checkOwner(m, caller);
    return m;
  }

  private MemberFaultException unknown(String memberId) {
    return fault(MemberFault.UNKNOWN_MEMBER_ID, "member '" + memberId + "' is not a classic member of group '"
        + group.host.groupName() + "' (it left, timed out, or the broker restarted): join again");
  }

  private void requireOpen() {
    if (group.closed) {
      throw fault(MemberFault.COORDINATOR_NOT_AVAILABLE, "the broker is stopping");
    }
  }

  private static MemberFaultException fault(MemberFault fault, String message) {
    return new MemberFaultException(fault, message);
  }
}
