package io.brook.broker.groups.consumer;

import io.brook.broker.errors.Ownership;
import io.brook.broker.groups.GroupProtocol;
import io.brook.broker.groups.GroupState;
import io.brook.broker.groups.GroupView;
import io.brook.broker.groups.MemberFault;
import io.brook.broker.groups.MemberFaultException;
import io.brook.broker.groups.Membership;
import io.brook.broker.groups.MembershipHost;
import io.brook.broker.groups.TopicPartition;
import io.brook.broker.groups.TopicPatterns;
import io.brook.broker.groups.assign.AssignmentSpec;
import io.brook.broker.groups.assign.MemberSpec;
import io.brook.broker.groups.assign.ServerAssignor;
import io.brook.broker.groups.assign.ServerAssignors;
import io.brook.broker.groups.classic.ClassicHandover;
import io.brook.broker.groups.classic.ClassicMembership;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * KIP-848 consumer group members (ConsumerGroupHeartbeat): the broker assigns. A change of members
 * or subscriptions (or of the subscribed topics' partitions) bumps the group epoch, journaled as the
 * group's generation, and computes a new target assignment with the server assignor; each member then
 * converges to its target through its heartbeats ({@link Reconciler}): revocation before
 * reassignment, so no partition is ever owned by two members. Every method runs under the group's
 * monitor.
 */
public final class ConsumerMembership implements Membership {
  private static final Logger log = LoggerFactory.getLogger(ConsumerMembership.class);
  /** How often the subscribed topics are looked at for new or deleted partitions, and regexes re-matched. */
  static final long TOPIC_CHECK_INTERVAL_MS = 1000;

  final MembershipHost host;
  final ConsumerSettings settings;
  final Map<String, ConsumerMember> members = new LinkedHashMap<>();
  Map<String, Set<TopicPartition>> target = new HashMap<>();
  int targetEpoch;
  /** The partition counts the target was computed on. */
  private Map<String, Integer> targetTopics = Map.of();
  private String assignorName = ServerAssignors.defaultAssignor().name();
  /** Members or subscriptions changed: the group epoch must grow and the target be computed again. */
  boolean changed;
  private long nextTopicCheckMs;
  boolean closed;
  private final ClassicMembers classic = new ClassicMembers(this);

  public ConsumerMembership(MembershipHost host, ConsumerSettings settings) {
    this.host = host;
    this.settings = settings;
    this.targetEpoch = host.generation();
  }

  /**
   * A KIP-848 group made of a classic group's members, as a KIP-848 consumer joins it (Kafka's online
   * upgrade): each keeps its id, its subscription and its partitions, at the classic generation, which
   * is the target until the joining member bumps the epoch.
   */
  public static ConsumerMembership fromClassic(MembershipHost host, ConsumerSettings settings,
      List<ClassicHandover> handed) {
    ConsumerMembership g = new ConsumerMembership(host, settings);
    int epoch = host.generation();
    long now = host.nowMs();
    Set<String> topics = new TreeSet<>();
    for (ClassicHandover h : handed) {
      ConsumerMember m = new ConsumerMember(h.memberId(), h.owner());
      m.instanceId = h.instanceId();
      m.clientId = h.clientId();
      m.clientHost = h.clientHost();
      m.rebalanceTimeoutMs = h.rebalanceTimeoutMs();
      m.topicNames = List.copyOf(new TreeSet<>(h.topics()));
      m.classic = new ClassicInfo(h.sessionTimeoutMs(), h.protocols());
      m.assign(new MemberAssignment(epoch, epoch, MemberState.STABLE, Set.copyOf(h.assigned()), Set.of()));
      m.lastHeartbeatMs = now;
      g.members.put(m.id, m);
      g.target.put(m.id, m.assignment.assigned());
      topics.addAll(m.topicNames);
    }
    g.targetTopics = host.partitionCounts(topics);
    return g;
  }

  /** Its classic members' JoinGroup, SyncGroup, Heartbeat and LeaveGroup. */
  public ClassicMembers classic() {
    return classic;
  }

  /**
   * Takes one heartbeat: joins (epoch 0), leaves (-1, or -2 for a static member coming back), or
   * keeps a member alive and moves it towards its target.
   *
   * @throws MemberFaultException when refused
   */
  public HeartbeatAnswer heartbeat(ConsumerHeartbeat hb) {
    if (closed) {
      throw new MemberFaultException(MemberFault.COORDINATOR_NOT_AVAILABLE, "the broker is stopping");
    }
    long now = host.nowMs();
    if (hb.memberEpoch() == -1 || hb.memberEpoch() == ConsumerMember.LEFT_STATIC) {
      return leave(hb, now);
    }
    Pattern pattern = hb.subscribedTopicRegex() == null ? null : compile(hb.subscribedTopicRegex());
    if (hb.serverAssignor() != null && ServerAssignors.byName(hb.serverAssignor()).isEmpty()) {
      throw new MemberFaultException(MemberFault.UNSUPPORTED_ASSIGNOR, "server assignor '" + hb.serverAssignor()
          + "' is not one of " + ServerAssignors.names());
    }
    ConsumerMember m = hb.memberEpoch() == 0 ? join(hb, now) : existing(hb);
    Set<TopicPartition> owned = hb.owned() == null ? null : partitions(hb.owned());
    if (hb.memberEpoch() > 0) {
      checkEpoch(m, hb.memberEpoch(), owned);
    }
    m.lastHeartbeatMs = now;
    if (hb.rebalanceTimeoutMs() >= 0) {
      m.rebalanceTimeoutMs = hb.rebalanceTimeoutMs();
    }
    if (hb.rackId() != null) {
      m.rackId = hb.rackId();
    }
    m.clientId = Objects.requireNonNullElse(hb.clientId(), "");
    m.clientHost = Objects.requireNonNullElse(hb.clientHost(), "");
    subscribe(m, hb, pattern);
    retargetForJoin(m, now);
    reconcile(m, owned, now);
    boolean tell = hb.memberEpoch() == 0 || hb.full() || !m.assignment.assigned().equals(m.answered);
    List<TopicPartitions> assignment = null;
    if (tell) {
      m.answered = m.assignment.assigned();
      assignment = byTopicId(m.answered);
    }
    return new HeartbeatAnswer(null, null, m.id, m.assignment.epoch(), settings.heartbeatIntervalMs(), assignment);
  }

  private ConsumerMember join(ConsumerHeartbeat hb, long now) {
    String id = hb.memberId().isEmpty() ? UUID.randomUUID().toString() : hb.memberId(); // v0 lets the broker choose
    ConsumerMember previous = null;
    if (hb.instanceId() != null) {
      previous = members.values().stream().filter(o -> hb.instanceId().equals(o.instanceId)).findFirst().orElse(null);
      if (previous != null && previous.id.equals(id)) {
        previous = null; // the same member joining again: below
      } else if (previous != null && !previous.leftStatic() && previous.classic == null) {
        // (a classic static member does not leave on close: a KIP-848 instance replaces it, as in Kafka)
        throw new MemberFaultException(MemberFault.UNRELEASED_INSTANCE_ID, "instance id '" + hb.instanceId()
            + "' is held by member " + previous.id + " of group '" + host.groupName()
            + "', which has not left: stop that consumer first");
      }
    }
    if (previous != null) {
      checkOwner(previous, hb.owner()); // a static slot and its partitions are its principal's only
    }
    ConsumerMember same = members.get(id);
    if (same != null) {
      checkOwner(same, hb.owner());
    }
    ConsumerMember m = new ConsumerMember(id, hb.owner());
    m.instanceId = hb.instanceId();
    m.lastHeartbeatMs = now;
    if (previous != null) { // a static member back (or upgraded): it takes over its assignment, no rebalance
      members.remove(previous.id);
      m.takeOver(previous, previous.assignment);
      m.topicNames = previous.topicNames;
      m.regex = previous.regex;
      m.pattern = previous.pattern;
      m.visible = previous.visible;
      m.serverAssignor = previous.serverAssignor;
      m.rebalanceTimeoutMs = previous.rebalanceTimeoutMs;
      moveTarget(previous.id, id);
      log.info("Group {}: static member {} is back as {}", host.groupName(), hb.instanceId(), id);
    } else if (same != null) {
      // Joining again (after an error it lost its partitions): it starts from nothing, keeping its target.
      m.topicNames = same.topicNames;
      m.regex = same.regex;
      m.pattern = same.pattern;
      m.visible = same.visible;
      m.serverAssignor = same.serverAssignor;
    } else {
      changed = true;
      log.info("Group {}: member {} joined ({} members)", host.groupName(), id, members.size() + 1);
    }
    members.put(id, m);
    return m;
  }

  private ConsumerMember existing(ConsumerHeartbeat hb) {
    ConsumerMember m = members.get(hb.memberId());
    if (m == null || m.classic != null) {
      throw new MemberFaultException(MemberFault.UNKNOWN_MEMBER_ID, "member '" + hb.memberId() + "' is not in group '"
          + host.groupName() + "' (it left, timed out, was fenced, or the broker restarted): join again with epoch 0");
    }
    checkOwner(m, hb.owner());
    return m;
  }

  /** A member acts only as the principal that made it (D25); refused as Kafka refuses a group it may not use. */
  void checkOwner(ConsumerMember m, String caller) {
    if (!Ownership.allows(m.owner, caller)) {
      // The owner is not named: one principal learns nothing of another's name.
      throw new MemberFaultException(MemberFault.GROUP_AUTHORIZATION_FAILED, "principal " + caller
          + " may not act as member '" + m.id + "' of group '" + host.groupName() + "': another principal made it");
    }
  }

  /**
   * The epoch it sends must be its own; or its previous one, when the answer that moved it on was lost
   * and what it owns is still within its assignment (Kafka accepts that too, so the member is not fenced).
   */
  private void checkEpoch(ConsumerMember m, int epoch, Set<TopicPartition> owned) {
    MemberAssignment a = m.assignment;
    if (epoch == a.epoch()) {
      return;
    }
    if (epoch < a.epoch() && epoch == a.previousEpoch() && owned != null && a.assigned().containsAll(owned)) {
      return;
    }
    throw new MemberFaultException(MemberFault.FENCED_MEMBER_EPOCH, "member '" + m.id + "' sent epoch " + epoch
        + " but has epoch " + a.epoch() + " in group '" + host.groupName() + "': join again with epoch 0");
  }

  private void subscribe(ConsumerMember m, ConsumerHeartbeat hb, Pattern pattern) {
    m.visible = hb.visibleTopics();
    if (hb.subscribedTopicNames() != null) {
      List<String> names = List.copyOf(new TreeSet<>(hb.subscribedTopicNames()));
      if (!names.equals(m.topicNames)) {
        m.topicNames = names;
        changed = true;
      }
    }
    if (hb.subscribedTopicRegex() != null) {
      String regex = hb.subscribedTopicRegex().isEmpty() ? null : hb.subscribedTopicRegex(); // "": no regex
      if (!Objects.equals(regex, m.regex)) {
        m.regex = regex;
        m.pattern = regex == null ? null : pattern;
        changed = true;
      }
    }
    if (hb.serverAssignor() != null && !hb.serverAssignor().equals(m.serverAssignor)) {
      m.serverAssignor = hb.serverAssignor();
      changed = true;
    }
  }

  private HeartbeatAnswer leave(ConsumerHeartbeat hb, long now) {
    ConsumerMember m = existing(hb);
    if (hb.memberEpoch() == ConsumerMember.LEFT_STATIC && m.instanceId != null) {
      // It comes back soon with its instance id: its assignment waits for it until its session ends.
      MemberAssignment a = m.assignment;
      m.assignment = new MemberAssignment(ConsumerMember.LEFT_STATIC, a.epoch(), a.state(), a.assigned(), a.revoking());
      m.lastHeartbeatMs = now;
      log.info("Group {}: static member {} ({}) left for a while", host.groupName(), m.id, m.instanceId);
    } else {
      remove(m, now, "left");
    }
    return new HeartbeatAnswer(null, null, m.id, hb.memberEpoch(), 0, null); // no more heartbeats: no interval
  }

  void remove(ConsumerMember m, long now, String why) {
    members.remove(m.id);
    target.remove(m.id);
    changed = true;
    log.info("Group {}: member {} {} ({} members)", host.groupName(), m.id, why, members.size());
    if (members.isEmpty()) {
      target = new HashMap<>();
      changed = false; // nobody to assign to; the next join bumps the epoch
      host.membershipEmptied();
      return;
    }
    if (m.classic == null && settings.migration().downgrades() && handBackIfOnlyClassic()) {
      return;
    }
    retarget(now);
  }

  /**
   * When only classic members are left (the last KIP-848 member left, was removed, or a classic static
   * member took its place; the policy downgrades) the group becomes classic again (Kafka's online
   * downgrade): this engine ends and its members rebalance as a classic group. True when it did.
   */
  boolean handBackIfOnlyClassic() {
    if (members.isEmpty() || members.values().stream().anyMatch(m -> m.classic == null)) {
      return false;
    }
    List<ClassicHandover> handed = new ArrayList<>();
    for (ConsumerMember m : members.values()) {
      Set<TopicPartition> owns = new TreeSet<>(m.assignment.assigned());
      owns.addAll(m.assignment.revoking()); // still its own until it rejoins
      handed.add(new ClassicHandover(m.id, m.instanceId, m.owner, m.clientId, m.clientHost, m.classic.sessionTimeoutMs,
          m.rebalanceTimeoutMs, m.classic.protocols, m.topicNames, List.copyOf(owns)));
    }
    log.info("Group {}: only classic members are left: back to the classic protocol", host.groupName());
    host.replaceMembership(h -> new ClassicMembership(h, settings.classicInitialDelayMs(), handed));
    members.clear();
    target = new HashMap<>();
    closed = true;
    return true;
  }

  /**
   * After a member joined or changed its subscription: a new epoch and target. A member that would be
   * answered an epoch the group never had (it has none yet) is refused: it joins once the epoch can be
   * journaled.
   */
  void retargetForJoin(ConsumerMember m, long now) {
    if (!changed) {
      return;
    }
    retarget(now);
    if (changed && m.assignment.epoch() == 0) {
      members.remove(m.id);
      throw new MemberFaultException(MemberFault.COORDINATOR_NOT_AVAILABLE, "group '" + host.groupName()
          + "' cannot journal its new epoch (the disk's headroom is used up): join again later");
    }
  }

  /** A static member's new instance takes over the old one's target. */
  void moveTarget(String from, String to) {
    Set<TopicPartition> its = target.remove(from);
    if (its != null) {
      target.put(to, its);
    }
  }

  /** Bumps the group epoch and computes the target; when the epoch cannot be journaled, the tick tries again. */
  void retarget(long now) {
    int epoch = host.generation() + 1;
    if (!host.journalGeneration(epoch)) {
      return;
    }
    changed = false;
    Map<String, MemberSpec> specs = new TreeMap<>();
    Set<String> topics = new TreeSet<>();
    for (ConsumerMember m : members.values()) {
      Set<String> subscribed = subscribedTopics(m);
      topics.addAll(subscribed);
      specs.put(m.id, new MemberSpec(subscribed, m.instanceId, target.getOrDefault(m.id, Set.of())));
    }
    targetTopics = host.partitionCounts(topics);
    ServerAssignor assignor = chooseAssignor();
    assignorName = assignor.name();
    target = new HashMap<>(assignor.assign(new AssignmentSpec(specs, targetTopics)));
    targetEpoch = epoch;
    log.info("Group {}: epoch {}, {} member(s), {} partition(s) assigned by {}", host.groupName(), epoch,
        members.size(), target.values().stream().mapToInt(Set::size).sum(), assignorName);
  }

  /** The assignor most members ask for, else the default (as Kafka chooses). */
  private ServerAssignor chooseAssignor() {
    Map<String, Long> votes = members.values().stream().filter(m -> m.serverAssignor != null)
        .collect(Collectors.groupingBy(m -> m.serverAssignor, TreeMap::new, Collectors.counting()));
    return votes.entrySet().stream().max(Map.Entry.comparingByValue()).flatMap(e -> ServerAssignors.byName(e.getKey()))
        .orElse(ServerAssignors.defaultAssignor());
  }

  void reconcile(ConsumerMember m, Set<TopicPartition> owned, long now) {
    MemberAssignment before = m.assignment;
    Set<TopicPartition> mine = target.getOrDefault(m.id, Set.of());
    m.assign(Reconciler.next(before, targetEpoch, mine, owned, tp -> heldByOther(m, tp)));
    if (m.assignment.state() == MemberState.UNREVOKED_PARTITIONS && before.state() != MemberState.UNREVOKED_PARTITIONS) {
      m.revokeDeadlineMs = now + m.rebalanceTimeoutMs;
    }
  }

  boolean heldByOther(ConsumerMember self, TopicPartition tp) {
    for (ConsumerMember o : members.values()) {
      if (o != self && (o.assignment.assigned().contains(tp) || o.assignment.revoking().contains(tp))) {
        return true;
      }
    }
    return false;
  }

  private Set<String> subscribedTopics(ConsumerMember m) {
    Set<String> topics = new TreeSet<>(m.topicNames);
    if (m.pattern != null) { // only topics its principal may see, as Kafka (KAFKA-18813)
      topics.addAll(TopicPatterns.matching(m.pattern, host.topicNames(), m.visible));
    }
    return topics;
  }

  private Pattern compile(String regex) {
    try {
      return TopicPatterns.compile(regex, host.topicNames());
    } catch (IllegalArgumentException e) {
      throw new MemberFaultException(MemberFault.INVALID_REGULAR_EXPRESSION, "SubscribedTopicRegex '" + regex
          + "' is refused: " + e.getMessage());
    }
  }

  /** Partitions named by topic id, as names; ids of topics that no longer exist are left out. */
  private Set<TopicPartition> partitions(List<TopicPartitions> byId) {
    Set<TopicPartition> out = new TreeSet<>();
    for (TopicPartitions t : byId) {
      Optional<String> name = host.topicName(t.topicId());
      name.ifPresent(n -> t.partitions().forEach(p -> out.add(new TopicPartition(n, p))));
    }
    return out;
  }

  private List<TopicPartitions> byTopicId(Set<TopicPartition> tps) {
    Map<String, List<Integer>> byTopic = new TreeMap<>();
    tps.forEach(tp -> byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition()));
    List<TopicPartitions> out = new ArrayList<>();
    byTopic.forEach((topic, ps) -> host.topicId(topic).ifPresent(id -> out.add(new TopicPartitions(id,
        ps.stream().sorted().toList()))));
    return out;
  }

  private List<ConsumerGroupDescription.Topic> described(Set<TopicPartition> tps) {
    Map<String, List<Integer>> byTopic = new TreeMap<>();
    tps.forEach(tp -> byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition()));
    List<ConsumerGroupDescription.Topic> out = new ArrayList<>();
    byTopic.forEach((topic, ps) -> host.topicId(topic).ifPresent(id -> out.add(new ConsumerGroupDescription.Topic(id,
        topic, ps.stream().sorted().toList()))));
    return out;
  }

  /** The group as ConsumerGroupDescribe shows it. */
  public ConsumerGroupDescription describe() {
    List<ConsumerGroupDescription.Member> ms = new ArrayList<>();
    for (ConsumerMember m : members.values()) {
      ms.add(new ConsumerGroupDescription.Member(m.id, m.instanceId, m.rackId, m.assignment.epoch(), m.clientId,
          m.clientHost, m.topicNames, m.regex, described(m.assignment.assigned()),
          described(target.getOrDefault(m.id, Set.of())), m.classic != null));
    }
    return new ConsumerGroupDescription(host.groupName(), kafkaState(), host.generation(), targetEpoch, assignorName, ms);
  }

  @Override
  public GroupProtocol protocol() {
    return GroupProtocol.CONSUMER;
  }

  @Override
  public int memberCount() {
    return members.size();
  }

  @Override
  public GroupState state() {
    return switch (kafkaState()) {
      case "Empty" -> GroupState.EMPTY;
      case "Stable" -> GroupState.STABLE;
      default -> GroupState.REBALANCING;
    };
  }

  @Override
  public String kafkaState() {
    if (members.isEmpty()) {
      return "Empty";
    }
    if (changed) {
      return "Assigning";
    }
    boolean reconciling = members.values().stream().anyMatch(m -> !m.leftStatic()
        && (m.assignment.epoch() != targetEpoch || m.assignment.state() != MemberState.STABLE));
    return reconciling ? "Reconciling" : "Stable";
  }

  @Override
  public String protocolType() {
    return "consumer";
  }

  @Override
  public String protocolName() {
    return assignorName;
  }

  @Override
  public Map<TopicPartition, String> owners() {
    Map<TopicPartition, String> owners = new HashMap<>();
    for (ConsumerMember m : members.values()) {
      m.assignment.assigned().forEach(tp -> owners.put(tp, m.id));
      m.assignment.revoking().forEach(tp -> owners.put(tp, m.id));
    }
    return owners;
  }

  @Override
  public List<GroupView.Member> members() {
    List<GroupView.Member> out = new ArrayList<>();
    for (ConsumerMember m : members.values()) {
      out.add(new GroupView.Member(m.id, m.clientId, m.clientHost, List.copyOf(new TreeSet<>(m.assignment.assigned())),
          m.lastHeartbeatMs, 0, true, m.instanceId, m.classic == null ? null : m.classic.subscription(), null));
    }
    return out;
  }

  @Override
  public Set<String> subscribedTopics() {
    Set<String> topics = new TreeSet<>();
    members.values().forEach(m -> topics.addAll(subscribedTopics(m)));
    return topics;
  }

  /**
   * As Kafka validates a KIP-848 member's OffsetFetch: the member must exist, and the epoch it sends
   * be its own; any other is STALE_MEMBER_EPOCH (the client takes its latest epoch and retries, where
   * FENCED_MEMBER_EPOCH would make it give up its partitions). A classic member's generation must be
   * its epoch (ILLEGAL_GENERATION).
   */
  @Override
  public void checkCommit(String memberId, String instanceId, int epoch, String caller) {
    checkCommit(memberId, instanceId, epoch, caller, null);
  }

  /**
   * As Kafka 4.3 validates a KIP-848 member's OffsetCommit: as an OffsetFetch, except that an older
   * epoch is taken for partitions the member has had since that epoch or before (its commitSync was
   * in flight while a heartbeat moved it on); a newer one, or a partition it got later, is STALE_MEMBER_EPOCH.
   */
  @Override
  public void checkCommit(String memberId, String instanceId, int epoch, String caller,
      java.util.Collection<TopicPartition> partitions) {
    ConsumerMember m = members.get(memberId);
    if (m == null) {
      throw new MemberFaultException(MemberFault.UNKNOWN_MEMBER_ID, "member '" + memberId + "' is not in group '"
          + host.groupName() + "'");
    }
    checkOwner(m, caller);
    if (m.classic != null && epoch != m.assignment.epoch()) { // a classic member commits with its generation
      throw new MemberFaultException(MemberFault.ILLEGAL_GENERATION, "generation " + epoch + " of member '" + memberId
          + "' is not its current one (" + m.assignment.epoch() + "): join again");
    }
    if (epoch != m.assignment.epoch() && (partitions == null || epoch > m.assignment.epoch()
        || !partitions.stream().allMatch(tp -> m.since.containsKey(tp) && m.since.get(tp) <= epoch))) {
      throw new MemberFaultException(MemberFault.STALE_MEMBER_EPOCH, "the received member epoch " + epoch
          + " does not match member '" + memberId + "''s epoch " + m.assignment.epoch()
          + (partitions == null || epoch > m.assignment.epoch() ? "" : ", nor had it all these partitions at that epoch"));
    }
  }

  /** Removes members whose session ended or that kept revoked partitions past their rebalance timeout. */
  @Override
  public void tick(long nowMs) {
    for (ConsumerMember m : List.copyOf(members.values())) {
      if (closed) {
        return; // the group went back to the classic protocol: another engine serves it now
      }
      long session = m.classic == null ? settings.sessionTimeoutMs() : m.classic.sessionTimeoutMs;
      if (nowMs - m.lastHeartbeatMs > session) {
        remove(m, nowMs, "removed, no heartbeat within the session timeout (" + session + " ms)");
      } else if (m.classic != null && m.classic.rejoinDeadlineMs > 0 && nowMs > m.classic.rejoinDeadlineMs) {
        remove(m, nowMs, "removed, it did not join again within its rebalance timeout (" + m.rebalanceTimeoutMs
            + " ms) after it was told to");
      } else if (m.assignment.state() == MemberState.UNREVOKED_PARTITIONS && nowMs > m.revokeDeadlineMs) {
        remove(m, nowMs, "fenced: it kept partitions it had to give up past its rebalance timeout ("
            + m.rebalanceTimeoutMs + " ms)");
      }
    }
    if (closed) {
      return;
    }
    if (nowMs >= nextTopicCheckMs) {
      nextTopicCheckMs = nowMs + TOPIC_CHECK_INTERVAL_MS;
      topicsChanged(nowMs);
    }
    if (changed && !members.isEmpty()) {
      retarget(nowMs);
    }
  }

  /** A new target when the subscribed topics' partitions are not those the target was computed on. */
  @Override
  public void topicsChanged(long nowMs) {
    if (members.isEmpty()) {
      return;
    }
    Set<String> topics = new TreeSet<>();
    members.values().forEach(m -> topics.addAll(subscribedTopics(m)));
    if (!host.partitionCounts(topics).equals(targetTopics)) {
      changed = true;
      retarget(nowMs);
    }
  }

  @Override
  public void close(String why) {
    closed = true; // nothing is parked: KIP-848 heartbeats are answered at once
  }

  /** Its KIP-848 members heartbeat with ConsumerGroupHeartbeat; its classic members (D59) do not. */
  @Override
  public boolean heartbeats(String memberId) {
    ConsumerMember m = members.get(memberId);
    return m != null && m.classic == null;
  }
}
