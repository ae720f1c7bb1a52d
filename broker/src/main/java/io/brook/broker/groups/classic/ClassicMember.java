package io.brook.broker.groups.classic;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** One member of a classic group: what it joined with, what it was assigned, and its parked calls. */
final class ClassicMember {
  String id;
  final String instanceId;
  final String owner;
  String clientId;
  String clientHost;
  int sessionTimeoutMs;
  int rebalanceTimeoutMs;
  List<ClassicProtocol> protocols;
  MemberAssignment assignment = MemberAssignment.NONE;
  long lastSeenMs;
  /** Its JoinGroup waiting for the rebalance to complete, or null. */
  CompletableFuture<JoinAnswer> join;
  /** Its SyncGroup waiting for the leader's, or null. */
  CompletableFuture<SyncAnswer> sync;
  /** Joined with JoinGroup v9+: may be told to skip the assignment when it rejoins as a static leader. */
  boolean supportsSkipAssignment;

  ClassicMember(String id, ClassicJoin request, long nowMs) {
    this.id = id;
    this.instanceId = request.instanceId();
    this.owner = request.owner();
    update(request, nowMs);
  }

  void update(ClassicJoin request, long nowMs) {
    clientId = request.clientId();
    clientHost = request.clientHost();
    sessionTimeoutMs = request.sessionTimeoutMs();
    rebalanceTimeoutMs = request.rebalanceTimeoutMs();
    protocols = request.protocols();
    supportsSkipAssignment = request.supportsSkipAssignment();
    lastSeenMs = nowMs;
  }

  /** Whether it offers the same assignors with the same metadata, in the same order. */
  boolean sameProtocols(List<ClassicProtocol> others) {
    if (others.size() != protocols.size()) {
      return false;
    }
    for (int i = 0; i < others.size(); i++) {
      ClassicProtocol a = protocols.get(i);
      ClassicProtocol b = others.get(i);
      if (!a.name().equals(b.name()) || !Arrays.equals(a.metadata(), b.metadata())) {
        return false;
      }
    }
    return true;
  }

  ClassicProtocol protocol(String name) {
    return protocols.stream().filter(p -> p.name().equals(name)).findFirst().orElse(null);
  }

  /** A member whose JoinGroup or SyncGroup is parked is alive: it is waiting for the broker, not silent. */
  boolean expired(long nowMs) {
    return join == null && sync == null && nowMs - lastSeenMs > sessionTimeoutMs;
  }
}
