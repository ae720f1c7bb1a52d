package io.brook.broker.groups.consumer;

import io.brook.broker.groups.classic.ClassicProtocol;
import java.util.List;

/**
 * What a classic member of a KIP-848 group joined with (JoinGroup, not ConsumerGroupHeartbeat): it
 * keeps its own session timeout, and learns of a new assignment only by joining again.
 */
final class ClassicInfo {
  int sessionTimeoutMs;
  List<ClassicProtocol> protocols;
  /** When it must have joined again after it was told to (REBALANCE_IN_PROGRESS), or 0. */
  long rejoinDeadlineMs;

  ClassicInfo(int sessionTimeoutMs, List<ClassicProtocol> protocols) {
    this.sessionTimeoutMs = sessionTimeoutMs;
    this.protocols = protocols;
  }

  /** The assignor it answers with: its first, as Kafka does (each classic member assigns nothing itself). */
  String protocolName() {
    return protocols.get(0).name();
  }

  byte[] subscription() {
    return protocols.get(0).metadata();
  }

  boolean offers(String name) {
    return protocols.stream().anyMatch(p -> p.name().equals(name));
  }
}
