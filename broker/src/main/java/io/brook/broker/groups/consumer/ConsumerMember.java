package io.brook.broker.groups.consumer;

import io.brook.broker.groups.TopicPartition;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/** One KIP-848 member, in memory only (D16, D53). Accessed under the group's monitor. */
final class ConsumerMember {
  /** The epoch of a static member that left for a while (it keeps its assignment until its session ends). */
  static final int LEFT_STATIC = -2;

  final String id;
  final String owner;
  String instanceId;
  String rackId;
  String clientId = "";
  String clientHost = "";
  int rebalanceTimeoutMs;
  List<String> topicNames = List.of();
  String regex;
  Pattern pattern;
  /** The topics its principal may see: a regex matches only those (Kafka filters the same way). */
  java.util.function.Predicate<String> visible = t -> true;
  /** The assignor it asked for, or null. */
  String serverAssignor;
  MemberAssignment assignment = MemberAssignment.joining();
  /** What its last answer told it (null: never answered an assignment). */
  Set<TopicPartition> answered;
  long lastHeartbeatMs;
  /** When it must have given up its revoked partitions (while UNREVOKED_PARTITIONS). */
  long revokeDeadlineMs;
  /** A member that joined with the classic protocol (JoinGroup), else null. */
  ClassicInfo classic;
  /**
   * The epoch at which it got each partition it still has (assigned, or being given up): a commit sent
   * with an older epoch, in flight while its epoch moved on, may name those it had at that epoch (Kafka's
   * assignment-epoch check), so a commitSync during a rebalance does not fail.
   */
  final Map<TopicPartition, Integer> since = new HashMap<>();

  ConsumerMember(String id, String owner) {
    this.id = id;
    this.owner = owner;
  }

  /** Moves it to {@code next}, noting when it got each new partition. */
  void assign(MemberAssignment next) {
    next.assigned().forEach(tp -> since.putIfAbsent(tp, next.epoch()));
    since.keySet().removeIf(tp -> !next.assigned().contains(tp) && !next.revoking().contains(tp));
    assignment = next;
  }

  /** Takes over another member's partitions (a static member's new instance). */
  void takeOver(ConsumerMember previous, MemberAssignment a) {
    since.clear();
    since.putAll(previous.since);
    assignment = a;
  }

  boolean leftStatic() {
    return assignment.epoch() == LEFT_STATIC;
  }
}
