package io.brook.broker.core;

import io.brook.broker.groups.CommitOutcome;
import io.brook.broker.groups.CommitRequest;
import io.brook.broker.groups.CommittedOffset;
import io.brook.broker.groups.Group;
import io.brook.broker.groups.GroupConfig;
import io.brook.broker.groups.GroupManager;
import io.brook.broker.groups.GroupManager.ResetOutcome;
import io.brook.broker.groups.GroupManager.ResetTo;
import io.brook.broker.groups.GroupMode;
import io.brook.broker.groups.GroupView;
import io.brook.broker.groups.JoinRequest;
import io.brook.broker.groups.JoinResult;
import io.brook.broker.groups.OffsetDeletion;
import io.brook.broker.groups.OffsetGroup;
import io.brook.broker.groups.StaticMembers;
import io.brook.broker.groups.TopicPartition;
import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * Consumer groups, whichever protocol asks: offset-mode membership (join, heartbeat, leave) and
 * commits, and the admin calls of both modes (create, alter config, list, describe, reset, delete).
 * Every check of a request's values is here, so each door answers the same errors. Principals and
 * the topics a caller may see come in as arguments (null and "all" with auth off): who the caller
 * is, is the adapter's to find out.
 */
public final class GroupService {
  /** The broker's defaults for a join that names no timeout (0). */
  public static final int DEFAULT_SESSION_TIMEOUT_MS = 45_000;
  public static final int DEFAULT_REBALANCE_TIMEOUT_MS = 300_000;

  private final GroupManager groups;
  private final long minSessionMs;
  private final long maxSessionMs;

  /** @param minSessionMs bounds on the session timeout a member may ask for (group.min/max.session.timeout.ms) */
  public GroupService(GroupManager groups, long minSessionMs, long maxSessionMs) {
    this.groups = groups;
    this.minSessionMs = minSessionMs;
    this.maxSessionMs = maxSessionMs;
  }

  /**
   * Joins or rejoins an offset-mode group (created when absent); answered when the rebalance
   * completes. Timeouts of 0 take the broker's defaults.
   *
   * @param request its owner is the caller's principal
   */
  public ParkedCall<JoinResult> join(String group, JoinRequest request) {
    return join(group, request, t -> true);
  }

  /**
   * As {@link #join(String, JoinRequest)}.
   *
   * @param consumable the topics the caller may consume: a topic_pattern matches only those
   */
  public ParkedCall<JoinResult> join(String group, JoinRequest request, Predicate<String> consumable) {
    MemberChecks.check("JoinGroup", group, request.topics(), request.topicPattern(), request.clientId());
    StaticMembers.checkInstanceId(request.instanceId());
    long session = request.sessionTimeoutMs() == 0 ? DEFAULT_SESSION_TIMEOUT_MS : request.sessionTimeoutMs();
    if (session < minSessionMs || session > maxSessionMs) {
      throw MemberChecks.invalid("session_timeout_ms " + session + " is outside the broker's bounds ["
          + minSessionMs + ", " + maxSessionMs + "] (group.min/max.session.timeout.ms)");
    }
    long rebalance = request.rebalanceTimeoutMs() == 0 ? DEFAULT_REBALANCE_TIMEOUT_MS : request.rebalanceTimeoutMs();
    if (rebalance < 1) {
      throw MemberChecks.invalid("rebalance_timeout_ms must be >= 1 (0: " + DEFAULT_REBALANCE_TIMEOUT_MS + ")");
    }
    OffsetGroup g = groups.offsetGroup(group, true);
    CompletableFuture<JoinResult> joined = g.join(request.withTimeouts(session, rebalance), consumable);
    return new ParkedCall<>(joined, () -> g.joinCancelled(joined));
  }

  /**
   * Keeps a member alive; answers true when it must rejoin. With {@code maxWaitMs > 0} the answer
   * waits until a rebalance starts or that long passed (at most the member's heartbeat interval).
   */
  public ParkedCall<Boolean> heartbeat(String group, String memberId, int generation, long maxWaitMs,
      String principal) {
    if (maxWaitMs < 0) {
      throw MemberChecks.invalid("max_wait_ms must be >= 0 (0: answer at once), not " + maxWaitMs);
    }
    OffsetGroup g = groups.offsetGroup(group, false);
    CompletableFuture<Boolean> rejoin = g.heartbeat(memberId, generation, maxWaitMs, principal);
    return new ParkedCall<>(rejoin, () -> g.heartbeatCancelled(rejoin));
  }

  public void leave(String group, String memberId, String principal) {
    groups.offsetGroup(group, false).leave(memberId, principal);
  }

  /**
   * Commits offsets as a member of the current generation, or (empty member id, generation 0) from
   * outside a group that has no members, creating it when absent.
   */
  public List<CommitOutcome> commit(String group, String memberId, int generation, List<CommitRequest> offsets,
      String principal) {
    boolean outsider = memberId.isEmpty() && generation == 0;
    return groups.offsetGroup(group, outsider).commit(memberId, generation, offsets, principal);
  }

  /**
   * Commits from the Kafka door (OffsetCommit). With generation &lt; 0 and no member it is an
   * outsider's commit (Admin's alterConsumerGroupOffsets, kafka-consumer-groups --reset-offsets, an
   * assign() consumer), allowed while the group has no members, and it creates an absent group as
   * Kafka does; else the group's Kafka engine checks the member and its generation or epoch.
   *
   * {@code version} is the OffsetCommit's: a KIP-848 member needs v9+.
   *
   * @throws io.brook.broker.errors.BrokerException UNKNOWN_GROUP for a member's commit to an absent group
   * @throws io.brook.broker.groups.MemberFaultException when the member may not commit now
   */
  public List<CommitOutcome> kafkaCommit(String group, String memberId, String instanceId, int generation,
      List<CommitRequest> offsets, String principal, int version) {
    OffsetGroup g = groups.kafkaGroup(group, generation < 0);
    return g.kafkaCommit(memberId, instanceId, generation, offsets, principal, version);
  }

  /**
   * Checks the member an OffsetFetch (v9+) names (null and -1: none), as Kafka does for a KIP-848
   * group; other groups, and absent ones, check nothing.
   *
   * @throws io.brook.broker.groups.MemberFaultException UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH
   */
  public void checkKafkaFetch(String group, String memberId, int memberEpoch, String principal) {
    if (groups.find(group) instanceof OffsetGroup g) {
      g.checkKafkaFetch(memberId, memberEpoch, principal);
    }
  }

  /**
   * Committed offsets (ack mode: the lowest unsettled ones) on the topics the caller may see: every
   * one with no query; else per query the partitions it names (null where nothing is committed) or,
   * naming none, every committed one of its topic. An unknown group has none.
   */
  public List<Map.Entry<TopicPartition, CommittedOffset>> committed(String group, List<OffsetQuery> queries,
      Predicate<String> visibleTopics) {
    Map<TopicPartition, CommittedOffset> committed = groups.committed(group, visibleTopics);
    List<Map.Entry<TopicPartition, CommittedOffset>> out = new ArrayList<>();
    if (queries.isEmpty()) {
      committed.forEach((tp, co) -> out.add(new SimpleImmutableEntry<>(tp, co)));
      return out;
    }
    for (OffsetQuery q : queries) {
      if (q.partitions().isEmpty()) {
        committed.forEach((tp, co) -> {
          if (tp.topic().equals(q.topic())) {
            out.add(new SimpleImmutableEntry<>(tp, co));
          }
        });
      }
      for (int p : q.partitions()) {
        TopicPartition tp = new TopicPartition(q.topic(), p);
        out.add(new SimpleImmutableEntry<>(tp, committed.get(tp)));
      }
    }
    return out;
  }

  /** Whether the group exists (a bad name is INVALID_REQUEST). */
  public boolean exists(String group) {
    return groups.find(group) != null;
  }

  /** Creates a group; offset-mode groups take no config. Answers it as the caller may see it. */
  public GroupView create(String group, GroupMode mode, Map<String, String> config, Predicate<String> visibleTopics) {
    return groups.create(group, mode, config).describe().only(visibleTopics);
  }

  /** Sets and removes config keys of an ack-mode group. Answers it as the caller may see it. */
  public GroupView alterConfig(String group, Map<String, String> set, List<String> remove,
      Predicate<String> visibleTopics) {
    return groups.alterConfig(group, set, remove).describe().only(visibleTopics);
  }

  /** A group's mode (null: no such group) and config (the defaults for an absent group). */
  public record ConfiguredGroup(GroupMode mode, GroupConfig config) {}

  /** The group's config as Kafka's GROUP config resource shows it: an absent group has the defaults. */
  public ConfiguredGroup configOf(String group) {
    Group g = groups.find(group);
    return g == null ? new ConfiguredGroup(null, GroupConfig.of(group, Map.of()))
        : new ConfiguredGroup(g.mode(), g.config());
  }

  /**
   * Sets and removes config keys of an ack-mode group, creating it when absent (Kafka lets a share
   * group's config be set before it has members); validate-only writes nothing.
   *
   * @throws io.brook.broker.errors.BrokerException INCONSISTENT_GROUP_MODE for an offset-mode group;
   *     INVALID_REQUEST for a bad key, value or (new group) name
   */
  public void configureAck(String group, Map<String, String> set, List<String> remove, boolean validateOnly) {
    groups.configureAck(group, set, remove, validateOnly);
  }

  /** Every group, by name. */
  public List<GroupListing> list() {
    List<GroupListing> out = new ArrayList<>();
    for (Group g : groups.list()) {
      synchronized (g) { // one consistent picture per group
        out.add(new GroupListing(g.name(), g.mode(), g.state(), g.memberCount(), g.protocol(), g.protocolType(),
            g.kafkaState()));
      }
    }
    return out;
  }

  /** The group as the caller may see it: its partitions and members' topics only on topics it may see. */
  public GroupView describe(String group, Predicate<String> visibleTopics) {
    return groups.get(group).describe().only(visibleTopics);
  }

  /**
   * Moves committed offsets while the group has no members (ack mode: no stream). {@code partitions}
   * maps topics to partitions (an empty list: all of the topic); an empty map: every partition the
   * group has on the topics the caller may reset.
   */
  public List<ResetOutcome> reset(String group, Map<String, List<Integer>> partitions, ResetTo to, boolean dryRun,
      Predicate<String> resettableTopics) {
    return groups.reset(group, partitions, to, dryRun, resettableTopics);
  }

  /**
   * Forgets committed offsets of an offset-mode group (Kafka's OffsetDelete); per partition an
   * unknown topic or partition, or a topic a member subscribes to, is refused.
   *
   * @throws io.brook.broker.errors.BrokerException UNKNOWN_GROUP; GROUP_NOT_EMPTY with gRPC members;
   *     INCONSISTENT_GROUP_MODE for an ack group
   */
  public List<OffsetDeletion> deleteOffsets(String group, List<TopicPartition> partitions) {
    return groups.offsetGroup(group, false).deleteOffsets(partitions);
  }

  /** Deletes a group with no members, and its files. */
  public void delete(String group) {
    groups.delete(group);
  }
}
