package io.brook.broker.groups;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/** A member of an offset-mode group, as its group keeps it (in memory only). Guarded by the group's monitor. */
final class OffsetMember {
  final String id;
  /** The principal that made it (null with auth off): only it may rejoin, heartbeat, commit or leave as it. */
  final String owner;
  String clientId;
  String address;
  List<String> topics;
  long sessionTimeoutMs;
  long rebalanceTimeoutMs;
  long lastHeartbeatMs;
  CompletableFuture<JoinResult> pendingJoin;
  /** A heartbeat held until a rebalance starts or {@link #heldUntilMs}: answers rejoin. */
  CompletableFuture<Boolean> heldHeartbeat;
  long heldUntilMs;
  // Whether a join of this member was ever answered: until then its client does not know its id.
  boolean answered;
  List<TopicPartition> assignment = List.of();
  // Regex subscription (topic_pattern, PatternSubscriptions): topics then holds what the pattern
  // matched at the last rebalance. Null for a subscription by names.
  Pattern topicPattern;
  /** The topics its principal may consume: its pattern matches only those. */
  Predicate<String> consumable = t -> true;
  // Cooperative rebalancing (D64, CooperativeHandover): whether its last join was cooperative, the
  // partitions it reported owning then, those it holds until it rejoins although they are another's
  // now, and since which generation it has held each partition it holds (for its commits meanwhile).
  boolean cooperative;
  List<TopicPartition> reportedOwned = List.of();
  Set<TopicPartition> releasing = Set.of();
  Map<TopicPartition, Integer> heldSince = Map.of();
  /** The assignment its client was last answered (a static member away is not answered a rebalance's). */
  List<TopicPartition> delivered = List.of();
  // Static membership (StaticMembers): its instance id (null: a dynamic member), and the member ids it
  // took the place of, still fenced (MEMBER_REPLACED) while it is in the group.
  String instanceId;
  List<String> replacedIds = List.of();

  OffsetMember(String id, String owner) {
    this.id = id;
    this.owner = owner;
  }

  /** Answers its held heartbeat, if any. */
  void answerHeldHeartbeat(boolean rejoin) {
    CompletableFuture<Boolean> held = heldHeartbeat;
    heldHeartbeat = null;
    if (held != null) {
      held.complete(rejoin);
    }
  }
}
