package io.brook.broker.groups;

import io.brook.broker.delivery.AckMember;
import io.brook.broker.delivery.AckPartition;
import io.brook.broker.delivery.DeadLetters;
import io.brook.broker.delivery.Delivery;
import io.brook.broker.delivery.Ranges;
import io.brook.broker.delivery.SentDelivery;
import io.brook.broker.disk.DiskWrite;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.errors.Ownership;
import io.brook.broker.groups.Settlement.Extension;
import io.brook.broker.groups.Settlement.Failure;
import io.brook.broker.groups.Settlement.Nack;
import io.brook.broker.groups.Settlement.Range;
import io.brook.broker.groups.poll.PollStart;
import io.brook.broker.groups.share.ShareFetchSink;
import io.brook.broker.groups.share.ShareFetchStart;
import io.brook.broker.groups.share.ShareHeartbeatAnswer;
import io.brook.broker.records.LogRecord;
import io.brook.broker.topics.Partition;
import io.brook.broker.topics.Topic;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An ack-mode group: every member receives from every partition of its topics; each record handed
 * out is leased, and acked, handed back (nack, expiry) or dead-lettered. This class keeps the
 * members and settles; {@link AckWindows} the per-partition windows, {@link AckDispatch} the
 * deliveries (one at a time per group, on the broker's read executor), {@link SettleRuns} the walk
 * of a settled range. Every delivery and settle is journaled (one append per dispatch or per settle
 * call), so attempts and settled records survive a restart; leases do not: after a restart every
 * unsettled record is delivered again.
 */
public final class AckGroup extends Group {
  private static final Logger log = LoggerFactory.getLogger(AckGroup.class);
  private static final long FORGET_IDLE_MEMBER_MS = 60_000;

  private final AckWindows windows = new AckWindows(this);
  private final AckDispatch dispatch = new AckDispatch(this);
  private final Map<String, AckMember> members = new LinkedHashMap<>();
  private final ShareMembers shares = new ShareMembers(this);
  private final PollMembers polls = new PollMembers(this);
  private final DeadLetters deadLetters;
  /** The earliest lease deadline or redelivery time the tick has to act on. */
  private long nextDeadlineMs = Long.MAX_VALUE;

  AckGroup(String name, GroupContext ctx, GroupConfig config) {
    super(name, ctx, config);
    this.deadLetters = new DeadLetters(ctx.topics(), ctx.disk());
  }

  @Override
  public GroupMode mode() {
    return GroupMode.ACK;
  }

  @Override
  public synchronized int memberCount() {
    return members.size();
  }

  @Override
  public synchronized GroupState state() {
    return members.values().stream().anyMatch(m -> m.sink() != null) ? GroupState.STABLE : GroupState.EMPTY;
  }

  /** Share groups' state names in Kafka: "Stable" while a member receives, else "Empty". */
  @Override
  public synchronized String kafkaState() {
    return state() == GroupState.STABLE ? "Stable" : "Empty";
  }

  @Override
  public GroupProtocol protocol() {
    return GroupProtocol.NONE;
  }

  /** Kafka's nearest kind of group is the share group. */
  @Override
  public String protocolType() {
    return "share";
  }

  AckWindows windows() {
    return windows;
  }

  Collection<AckMember> members() {
    return members.values();
  }

  /** Something is due at {@code ms}: the tick acts on it then. */
  void dueBy(long ms) {
    nextDeadlineMs = Math.min(nextDeadlineMs, ms);
  }

  /**
   * A stream opens: the member (new, or taking over its client id) starts receiving. Only the
   * principal that made a member may take it over; ownership lasts as long as the member (in
   * memory, like its leases).
   *
   * @param owner the caller's principal (null with auth off)
   * @throws BrokerException NOT_OWNER when another principal's member has this client id
   */
  public synchronized AckMember connect(String clientId, List<String> topics, AckMember.Sink sink, long maxRecords,
      long maxBytes, String address, String owner) {
    for (String t : topics) {
      ctx.topics().get(t); // UNKNOWN_TOPIC for a topic that does not exist
    }
    long now = ctx.clock().millis();
    if (shares.has(clientId) || polls.has(clientId)) {
      throw error(BrokerError.INVALID_REQUEST, "client_id '" + clientId + "' is a Kafka share member's id or an HTTP"
          + " consumer's name in group '" + name + "'");
    }
    AckMember m = clientId.isEmpty() ? null : members.get(clientId);
    if (m != null) {
      Ownership.check(m.owner(), owner, memberName(m.id()));
    }
    if (m == null) {
      m = new AckMember(clientId.isEmpty() ? "member-" + UUID.randomUUID() : clientId, !clientId.isEmpty(), owner);
      members.put(m.id(), m);
      log.info("Group {}: member {} connected ({} members)", name, m.id(), members.size());
    } else if (m.sink() != null) {
      log.info("Group {}: a new stream of member {} replaces its previous one", name, m.id());
      if (m.sink() instanceof Closeable c) {
        c.replaced(error(BrokerError.MEMBER_REPLACED, "a newer Receive stream with client_id '" + m.id() + "' (from "
            + address + ") took over this member of group '" + name + "' and its leases"));
      }
    }
    m.connect(sink, Set.copyOf(topics), address, now);
    m.flowControl(maxRecords, maxBytes);
    windows.ensure(m.topics());
    requestDispatch();
    return m;
  }

  /** A stream ended: a member without a client id hands its leases back at once. */
  public synchronized void disconnect(AckMember m, AckMember.Sink sink) {
    if (m.sink() != sink) {
      return; // a newer stream took over
    }
    long now = ctx.clock().millis();
    m.disconnect(now);
    if (!m.keepsLeases()) {
      windows.all().forEach(ap -> ap.releaseAll(m, now));
      members.remove(m.id());
      log.info("Group {}: member {} disconnected, its leases handed back ({} members)", name, m.id(),
          members.size());
      requestDispatch();
    } else {
      log.info("Group {}: member {} disconnected; it keeps its {} leases until they expire", name, m.id(),
          m.leasedRecords());
    }
  }

  public synchronized void flowControl(AckMember m, long maxRecords, long maxBytes) {
    m.flowControl(maxRecords, maxBytes);
    requestDispatch();
  }

  /**
   * The member with this id (for Settle outside a stream), if the caller made it.
   *
   * @param caller the caller's principal (null with auth off)
   */
  public synchronized AckMember member(String memberId, String caller) {
    AckMember m = members.get(memberId);
    if (m == null || shares.has(memberId) || polls.has(memberId)) { // those settle through their own door
      throw error(BrokerError.UNKNOWN_MEMBER_ID, "member '" + memberId + "' is not in group '" + name
          + "' (its stream ended and it held no leases, or the broker restarted)");
    }
    Ownership.check(m.owner(), caller, memberName(memberId));
    return m;
  }

  private String memberName(String memberId) {
    return "member '" + memberId + "' of group '" + name + "'";
  }

  /** Acks, nacks and extends for a member; answers what did not apply. */
  public synchronized List<Failure> settle(AckMember m, Settlement s) {
    if (!s.acks().isEmpty() || s.nacks().stream().anyMatch(Nack::reject)) {
      ctx.disk().check(DiskWrite.ACK); // before any offset changes; plain nacks and extensions stay in memory
    }
    long now = ctx.clock().millis();
    m.seen(now);
    List<Failure> failures = new ArrayList<>();
    Map<AckPartition, Ranges> settled = new LinkedHashMap<>();
    boolean freed = false;
    for (Range r : s.acks()) {
      freed |= SettleRuns.apply(this, m, r, failures, (ap, o) -> {
        ap.settle(o);
        settled.computeIfAbsent(ap, k -> new Ranges()).add(o);
      });
    }
    for (Nack n : s.nacks()) {
      if (n.delayMs() < 0 || n.delayMs() > 86_400_000L) {
        failures.add(SettleRuns.invalid(n.range(), "delay_ms must be between 0 and 86400000"));
        continue;
      }
      freed |= SettleRuns.apply(this, m, n.range(), failures, (ap, o) -> {
        if (n.reject()) {
          if (deadLetter(ap, o, DeadLetters.REASON_REJECTED, now)) {
            settled.computeIfAbsent(ap, k -> new Ranges()).add(o);
          }
        } else {
          ap.release(o, now + n.delayMs());
          dueBy(now + n.delayMs());
        }
      });
    }
    for (Extension e : s.extensions()) {
      if (e.leaseMs() < 1 || e.leaseMs() > 3_600_000L) {
        failures.add(SettleRuns.invalid(e.range(), "lease_ms must be between 1 and 3600000"));
        continue;
      }
      SettleRuns.apply(this, m, e.range(), failures, (ap, o) -> ap.extend(o, now + e.leaseMs()));
    }
    List<JournalEvent> events = new ArrayList<>();
    settled.forEach((ap, ranges) -> events.add(new JournalEvent.Settled(ap.key(), ranges.toArray())));
    write(events);
    if (freed) {
      requestDispatch();
    }
    return failures;
  }

  /**
   * Deliveries a member's stream did not outlive: the member may never have got them, so they do not
   * count as attempts (journaled). Their leases stay as they are: the member's disconnect hands them
   * back, or a member that keeps its leases still holds them until they run out.
   */
  public synchronized void undeliver(AckMember m, List<SentDelivery> deliveries) {
    Map<AckPartition, Ranges> taken = new LinkedHashMap<>();
    for (SentDelivery d : deliveries) {
      AckPartition ap = windows.of(new TopicPartition(d.topic(), d.partition()));
      if (ap != null && ap.undeliver(d.offset(), m, d.attempt())) {
        taken.computeIfAbsent(ap, k -> new Ranges()).add(d.offset());
      }
    }
    if (taken.isEmpty()) {
      return;
    }
    List<JournalEvent> events = new ArrayList<>();
    taken.forEach((ap, ranges) -> events.add(new JournalEvent.Undelivered(ap.key(), ranges.toArray())));
    write(events);
    log.info("Group {}: member {}: {} deliveries ended with its stream; they do not count as attempts", name,
        m.id(), taken.values().stream().mapToInt(Ranges::count).sum());
  }

  /** A Kafka share member's heartbeat (ShareGroupHeartbeat): join with epoch 0, leave with -1. */
  public synchronized ShareHeartbeatAnswer shareHeartbeat(String memberId, int epoch, List<String> topics,
      String clientId, String host, String principal) {
    return shares.heartbeat(memberId, epoch, topics, clientId, host, principal, ctx.clock().millis());
  }

  /**
   * A Kafka share member's ShareFetch or ShareAcknowledge on its share session: see
   * {@link ShareMembers#fetch}. The records it waits for come under this monitor: continue asynchronously.
   */
  public synchronized ShareFetchStart shareFetch(String memberId, String principal, int epoch,
      Collection<TopicPartition> added, Collection<TopicPartition> forgotten, Settlement acks, boolean fetch,
      long maxRecords, long maxBytes) {
    return shares.fetch(memberId, principal, epoch, added, forgotten, acks, fetch, maxRecords, maxBytes,
        ctx.clock().millis());
  }

  /** A share fetch's wait ran out: answered with nothing if no dispatch answered it. */
  public synchronized void shareFetchTimedOut(ShareFetchSink sink, CompletableFuture<?> fetch) {
    sink.timedOut(fetch);
  }

  /**
   * An HTTP consumer's receive (D70): see {@link PollMembers#receive}. The records it waits for come
   * under this monitor: continue asynchronously.
   */
  public synchronized PollStart pollReceive(String consumer, List<String> topics, long maxRecords, long maxBytes,
      String address, String principal) {
    for (String t : topics) {
      ctx.topics().get(t); // UNKNOWN_TOPIC for a topic that does not exist
    }
    return polls.receive(consumer, topics, maxRecords, maxBytes, address, principal, ctx.clock().millis());
  }

  /**
   * A poll member's receive ends before it was answered: its wait ran out, or its connection closed.
   * With {@code giveBack}, records already handed to it go back to the group (they never reached the
   * consumer); either way it answers with nothing if no dispatch answered it yet.
   */
  public synchronized void pollEnded(PollStart start, boolean giveBack) {
    start.sink().timedOut(start.records());
    if (giveBack) {
      List<Delivery> got = start.records().getNow(List.of());
      polls.giveBack(start.member(), got, ctx.clock().millis());
    }
  }

  /** Acks, nacks and rejects for an HTTP consumer; answers what did not apply. */
  public synchronized List<Failure> pollSettle(String consumer, String principal, Settlement s) {
    return settle(polls.settler(consumer, principal, ctx.clock().millis()), s);
  }

  /** An HTTP consumer leaves: what it holds goes back at once. */
  public synchronized void pollLeave(String consumer, String principal) {
    polls.leave(consumer, principal, ctx.clock().millis());
  }

  boolean isShareMember(String id) {
    return shares.has(id);
  }

  AckMember memberById(String id) {
    return members.get(id);
  }

  void addMember(AckMember m) {
    members.put(m.id(), m);
  }

  void removeMember(AckMember m) {
    members.remove(m.id());
  }

  /** Asks for a dispatch on the executor; many asks before it runs make one. */
  public void requestDispatch() {
    dispatch.request();
  }

  /**
   * Retention deleted records of a partition: what the group had not settled there is gone, so it is
   * settled now (journaled, leases handed back) and counted. Also run after recovery, since the log
   * start may have moved while the broker was down.
   */
  synchronized void logStartAdvanced(Partition p) {
    AckPartition ap = windows.of(AckWindows.tp(p));
    if (ap == null || ap.partition() != p || ap.start() >= p.startOffset()) {
      return;
    }
    List<JournalEvent> events = new ArrayList<>();
    windows.dropDeleted(ap, events);
    write(events);
    requestDispatch();
  }

  /** Writes a record to the dead-letter topic and settles it; false (it stays) when that fails. */
  boolean deadLetter(AckPartition ap, long offset, String reason, long now) {
    Partition p = ap.partition();
    try {
      LogRecord r = p.read(offset, 1, Integer.MAX_VALUE).records().get(0);
      deadLetters.write(config.deadLetterTopic(), p.topic().name(), p.index(), r, ap.attempts(offset), reason, now);
      ap.deadLettered(offset);
      return true;
    } catch (BrokerException e) {
      log.warn("Group {}: cannot dead-letter {} offset {} to {}: {}; retrying after ack.timeout.ms", name, p.name(),
          offset, config.deadLetterTopic(), e.getMessage());
      ap.release(offset, now + config.ackTimeoutMs());
      dueBy(now + config.ackTimeoutMs());
      return false;
    }
  }

  /** Moves the start of partitions (a reset while no member is connected); discards their window. */
  synchronized void restartAt(Map<Partition, Long> offsets) {
    requireNoStreams("reset the offsets of");
    ctx.disk().check(DiskWrite.GROUP_RESET);
    windows.restartAt(offsets);
  }

  synchronized void requireNoStreams(String action) {
    long streams = members.values().stream().filter(m -> m.sink() != null).count();
    if (streams > 0) {
      throw error(BrokerError.GROUP_NOT_EMPTY, "cannot " + action + " group '" + name + "' while " + streams
          + " member(s) are receiving: stop them first");
    }
  }

  /** The lowest unsettled offset of each partition: the group's committed offsets. */
  public synchronized Map<TopicPartition, CommittedOffset> committed() {
    Map<TopicPartition, CommittedOffset> out = new TreeMap<>();
    windows.all().forEach(ap -> out.put(AckWindows.tp(ap.partition()), new CommittedOffset(ap.start(), "", 0)));
    return out;
  }

  @Override
  synchronized void tick(long now) {
    shares.expire(now);
    polls.expire(now);
    if (now >= nextDeadlineMs) {
      long min = Long.MAX_VALUE;
      int expired = 0;
      for (AckPartition ap : windows.all()) {
        expired += ap.expire(now);
        min = Math.min(min, ap.nextDeadline());
      }
      nextDeadlineMs = min;
      if (expired > 0) {
        log.debug("Group {}: {} leases expired", name, expired);
      }
      requestDispatch();
    }
    // Members between streams that hold nothing any more are forgotten after a while (until then a
    // late ack of theirs is answered LEASE_EXPIRED rather than UNKNOWN_MEMBER_ID).
    long forgetAfter = Math.max(FORGET_IDLE_MEMBER_MS, config.ackTimeoutMs());
    members.values().removeIf(m -> m.sink() == null && m.leasedRecords() == 0 && now - m.lastSeenMs() > forgetAfter);
    // Windows for the topics of connected members only: a member between streams receives nothing, and
    // its topics' windows must not come back after Kafka's DeleteShareGroupOffsets forgot them (D67).
    Set<String> subscribed = new HashSet<>();
    members.values().stream().filter(m -> m.sink() != null).forEach(m -> subscribed.addAll(m.topics()));
    int before = windows.size();
    windows.ensure(subscribed);
    if (windows.size() != before) {
      requestDispatch();
    }
  }

  @Override
  public synchronized GroupView describe() {
    List<GroupView.Member> ms = new ArrayList<>();
    for (AckMember m : members.values()) {
      List<TopicPartition> topics = m.topics().stream().sorted().map(t -> new TopicPartition(t, -1)).toList();
      String kafkaClient = shares.clientIdOf(m.id());
      String clientId = kafkaClient != null ? kafkaClient : m.keepsLeases() ? m.id() : "";
      ms.add(new GroupView.Member(m.id(), clientId, m.address(), topics, m.lastSeenMs(),
          m.leasedRecords(), m.sink() != null));
    }
    List<GroupView.PartitionView> parts = new ArrayList<>();
    for (AckPartition ap : windows.all()) {
      Partition p = ap.partition();
      parts.add(new GroupView.PartitionView(AckWindows.tp(p), ap.start(), p.startOffset(), p.endOffset(), "",
          ap.unsettled(), ap.deadLettered(), ap.redeliveries(), ap.deletedUnsettled()));
    }
    parts.sort((a, b) -> a.tp().compareTo(b.tp()));
    return new GroupView(name, mode(), GroupProtocol.NONE, "share", "", state(), kafkaState(), shares.groupEpoch(),
        config.effective(), ms, parts);
  }

  @Override
  protected void replay(JournalEvent event) {
    windows.replay(event);
  }

  @Override
  protected void afterReplay() {
    nextDeadlineMs = 0; // every unsettled record is due at once: leases do not survive a restart
  }

  @Override
  protected List<JournalEvent> snapshotState() {
    List<JournalEvent> events = new ArrayList<>();
    windows.snapshot(events);
    return events;
  }

  @Override
  synchronized void topicDeleted(Topic topic) {
    dropWindows(topic);
  }

  /** Forgets the group's windows on a topic (journaled) and gives the members' room back. */
  synchronized void dropWindows(Topic topic) {
    for (int key : forgetTopic(topic)) {
      AckPartition ap = windows.remove(key);
      if (ap != null) {
        ap.restart(ap.next()); // gives the members' room back
      }
      dispatch.forget(key);
    }
    requestDispatch();
  }

  @Override
  synchronized void closeMembers(String why) {
    new ArrayList<>(members.values()).forEach(m -> { // closing a stream may remove its member
      if (m.sink() instanceof Closeable c) {
        c.shutDown(why);
      }
    });
  }

  /** A sink that can be told to end its stream. */
  public interface Closeable {
    /** A newer stream of the same member took over: this one ends for good, with that error. */
    void replaced(BrokerException why);

    /** The broker stops: the member should connect again. */
    void shutDown(String why);
  }
}
