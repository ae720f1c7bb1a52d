package io.brook.broker.core;

import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.GroupManager;
import io.brook.broker.groups.GroupProtocol;
import io.brook.broker.groups.MemberFault;
import io.brook.broker.groups.MemberFaultException;
import io.brook.broker.groups.OffsetGroup;
import io.brook.broker.groups.classic.ClassicJoin;
import io.brook.broker.groups.classic.ClassicMembership;
import io.brook.broker.groups.classic.ClassicSync;
import io.brook.broker.groups.classic.JoinAnswer;
import io.brook.broker.groups.classic.LeaveAnswer;
import io.brook.broker.groups.classic.MemberIdentity;
import io.brook.broker.groups.classic.SyncAnswer;
import io.brook.broker.groups.consumer.ConsumerMembership;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's classic group protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup) on Brook's offset
 * groups: each group's {@link ClassicMembership} engine, called under the group's monitor. Every
 * refusal is answered as a {@link MemberFault} (Kafka's error names), never thrown: the Kafka door
 * maps it with no knowledge of the domain's exceptions.
 */
public final class ClassicGroupService {
  private static final Logger log = LoggerFactory.getLogger(ClassicGroupService.class);

  private final GroupManager groups;
  private final long initialRebalanceDelayMs;

  /** @param initialRebalanceDelayMs group.initial.rebalance.delay.ms */
  public ClassicGroupService(GroupManager groups, long initialRebalanceDelayMs) {
    this.groups = groups;
    this.initialRebalanceDelayMs = initialRebalanceDelayMs;
  }

  /**
   * Joins or rejoins; answered when the rebalance completes. A new member (empty id) creates the
   * group when absent; a known id on an unknown group is UNKNOWN_MEMBER_ID (the broker restarted).
   */
  public ParkedCall<JoinAnswer> join(String group, ClassicJoin request) {
    try {
      OffsetGroup g = group(group, request.memberId().isEmpty());
      synchronized (g) {
        ConsumerMembership mixed = kip848WithMembers(g);
        if (mixed != null) {
          return new ParkedCall<>(CompletableFuture.completedFuture(mixed.classic().join(request)), () -> { });
        }
        ClassicMembership engine = engine(g);
        CompletableFuture<JoinAnswer> answer = engine.join(request);
        return new ParkedCall<>(answer, () -> {
          synchronized (g) {
            engine.joinCancelled(answer);
          }
        });
      }
    } catch (MemberFaultException e) {
      return new ParkedCall<>(CompletableFuture.completedFuture(JoinAnswer.refused(e.fault(), request.memberId())),
          () -> { });
    } catch (BrokerException e) {
      return new ParkedCall<>(CompletableFuture.completedFuture(JoinAnswer.refused(fault(group, e).fault(),
          request.memberId())), () -> { });
    }
  }

  /** A member's SyncGroup: a follower's is answered when the leader's comes. */
  public ParkedCall<SyncAnswer> sync(String group, ClassicSync request) {
    try {
      OffsetGroup g = group(group, false);
      synchronized (g) {
        ConsumerMembership mixed = kip848WithMembers(g);
        if (mixed != null) {
          return new ParkedCall<>(CompletableFuture.completedFuture(mixed.classic().sync(request)), () -> { });
        }
        ClassicMembership engine = existingEngine(g, request.memberId());
        CompletableFuture<SyncAnswer> answer = engine.sync(request);
        return new ParkedCall<>(answer, () -> {
          synchronized (g) {
            engine.syncCancelled(answer);
          }
        });
      }
    } catch (MemberFaultException e) {
      return new ParkedCall<>(CompletableFuture.completedFuture(SyncAnswer.refused(e.fault())), () -> { });
    } catch (BrokerException e) {
      return new ParkedCall<>(CompletableFuture.completedFuture(SyncAnswer.refused(fault(group, e).fault())),
          () -> { });
    }
  }

  /** Keeps a member alive: null, or the fault to answer (REBALANCE_IN_PROGRESS: rejoin). Never held. */
  public MemberFault heartbeat(String group, String memberId, String instanceId, int generation, String principal) {
    try {
      OffsetGroup g = group(group, false);
      synchronized (g) {
        ConsumerMembership mixed = kip848WithMembers(g);
        if (mixed != null) {
          mixed.classic().heartbeat(memberId, instanceId, generation, principal);
        } else {
          existingEngine(g, memberId).heartbeat(memberId, instanceId, generation, principal);
        }
      }
      return null;
    } catch (MemberFaultException e) {
      return e.fault();
    }
  }

  /**
   * Members leave (LeaveGroup v3+ names several). A group that does not exist, or has no classic
   * members, has none of them: each is UNKNOWN_MEMBER_ID, as Kafka answers.
   */
  public LeaveAnswer leave(String group, List<MemberIdentity> members, String principal) {
    LeaveAnswer noneOfThem = new LeaveAnswer(null, members.stream().map(m -> MemberFault.UNKNOWN_MEMBER_ID).toList());
    try {
      OffsetGroup g = group(group, false);
      synchronized (g) {
        ConsumerMembership mixed = kip848WithMembers(g);
        if (mixed != null) {
          return new LeaveAnswer(null, mixed.classic().leave(members, principal));
        }
        ClassicMembership engine = g.membershipIfAny(ClassicMembership.class);
        return engine == null ? noneOfThem : new LeaveAnswer(null, engine.leave(members, principal));
      }
    } catch (MemberFaultException e) {
      return e.fault() == MemberFault.UNKNOWN_MEMBER_ID ? noneOfThem : new LeaveAnswer(e.fault(), List.of());
    }
  }

  /**
   * The group's KIP-848 engine when it has members: classic members join it and are assigned by the
   * broker, as Kafka serves them (unless group.consumer.migration.policy is disabled). An empty
   * KIP-848 group becomes classic instead.
   */
  private static ConsumerMembership kip848WithMembers(OffsetGroup g) {
    ConsumerMembership m = g.membershipIfAny(ConsumerMembership.class);
    return m != null && m.memberCount() > 0 ? m : null;
  }

  private ClassicMembership engine(OffsetGroup g) {
    try {
      return g.membership(ClassicMembership.class, GroupProtocol.CLASSIC,
          host -> new ClassicMembership(host, initialRebalanceDelayMs));
    } catch (BrokerException e) { // gRPC members are in it
      throw new MemberFaultException(MemberFault.INCONSISTENT_GROUP_PROTOCOL, e.getMessage());
    }
  }

  /** The group's classic engine; a group with none has no such member. */
  private static ClassicMembership existingEngine(OffsetGroup g, String memberId) {
    ClassicMembership engine = g.membershipIfAny(ClassicMembership.class);
    if (engine == null) {
      throw new MemberFaultException(MemberFault.UNKNOWN_MEMBER_ID, "member '" + memberId + "' is not in group '"
          + g.name() + "': it has no classic members");
    }
    return engine;
  }

  /** The offset group, its lookup's refusals as Kafka faults. */
  private OffsetGroup group(String group, boolean create) {
    if (group.isEmpty()) {
      throw new MemberFaultException(MemberFault.INVALID_GROUP_ID, "the group id is empty");
    }
    try {
      return groups.kafkaGroup(group, create);
    } catch (BrokerException e) {
      throw fault(group, e);
    }
  }

  /**
   * A lookup's or a journal write's refusal as a Kafka fault (a group deleted under a join: its
   * journal refuses the write, UNKNOWN_MEMBER_ID, and the client joins again from scratch).
   */
  private static MemberFaultException fault(String group, BrokerException e) {
    MemberFault fault = switch (e.error()) {
      case UNKNOWN_GROUP -> MemberFault.UNKNOWN_MEMBER_ID; // no group, so no such member (a restart forgot it)
      case INVALID_REQUEST -> MemberFault.INVALID_GROUP_ID;
      case INCONSISTENT_GROUP_MODE -> MemberFault.INCONSISTENT_GROUP_PROTOCOL; // an ack-mode group
      case NOT_ENOUGH_DISK, STORAGE_ERROR -> MemberFault.COORDINATOR_NOT_AVAILABLE; // retriable, as the disk may free up
      default -> {
        log.info("Refused a classic group call on group '{}': {}", group, e.getMessage());
        yield MemberFault.INVALID_REQUEST;
      }
    };
    return new MemberFaultException(fault, e.getMessage());
  }
}
