package io.brook.broker.groups;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A Kafka membership protocol engine (classic or KIP-848) hosted by an {@link OffsetGroup}: its
 * members, their sessions and assignments. Members live in memory only (D16): after a restart every
 * member gets UNKNOWN_MEMBER_ID and joins again. What outlives a restart goes through the
 * {@link MembershipHost}: the generation (or group epoch) and the committed offsets. Every method is
 * called under the hosting group's monitor, so an engine needs no locking of its own. Engines live in
 * packages of their own ({@code groups.classic}, {@code groups.consumer}); the group never names them.
 */
public interface Membership {
  GroupProtocol protocol();

  int memberCount();

  /** Brook's coarse state, for gRPC, /stats and metrics. */
  GroupState state();

  /**
   * The state under Kafka's name: "Empty", "PreparingRebalance", "CompletingRebalance", "Stable"
   * (classic), or "Empty", "Assigning", "Reconciling", "Stable" (consumer).
   */
  String kafkaState();

  /** The protocol type members joined with ("consumer" for consumers, "" when none). */
  String protocolType();

  /** The chosen assignor (classic: the protocol name; consumer: the server assignor), "" when none. */
  String protocolName();

  /** Who owns each assigned partition, by member id. */
  Map<TopicPartition, String> owners();

  /** The members as describe shows them. */
  List<GroupView.Member> members();

  /** Whether ids were handed out (MEMBER_ID_REQUIRED) that have not joined yet: the group is not idle. */
  default boolean hasPendingMembers() {
    return false;
  }

  /** The topics some member subscribes to (OffsetDelete answers GROUP_SUBSCRIBED_TO_TOPIC for them). */
  Set<String> subscribedTopics();

  /**
   * Whether this member may commit now, as Kafka validates an OffsetCommit (generation, or member
   * epoch for KIP-848). Called only when the request names a member or a generation &gt;= 0.
   *
   * @param caller the caller's principal (null with auth off): a member commits only as itself
   * @throws MemberFaultException when it may not
   */
  void checkCommit(String memberId, String instanceId, int generationOrEpoch, String caller);

  /**
   * As {@link #checkCommit(String, String, int, String)}, for a commit naming these partitions (a
   * KIP-848 member may commit with an older epoch a partition it has had since then, as Kafka allows).
   */
  default void checkCommit(String memberId, String instanceId, int generationOrEpoch, String caller,
      java.util.Collection<TopicPartition> partitions) {
    checkCommit(memberId, instanceId, generationOrEpoch, caller);
  }

  /** Session timeouts, rebalance and sync deadlines, expiry of pending members: the broker's timer calls it. */
  void tick(long nowMs);

  /** A topic was deleted or gained partitions: rebalance, or compute a new target. */
  void topicsChanged(long nowMs);

  /** The broker stops or the group is deleted: parked answers complete (COORDINATOR_NOT_AVAILABLE). */
  void close(String why);

  /**
   * Whether this member joined with ConsumerGroupHeartbeat (KIP-848), not JoinGroup: Kafka's
   * {@code !useClassicProtocol()}. Such a member must commit with OffsetCommit v9+. False for an unknown member.
   */
  default boolean heartbeats(String memberId) {
    return false;
  }
}
