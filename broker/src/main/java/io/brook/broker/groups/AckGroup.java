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
import io.brook.broker.records.LogRecord;
import io.brook.broker.storage.ReadResult;
import io.brook.broker.topics.Partition;
import io.brook.broker.topics.Topic;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An ack-mode group: every member receives from every partition of its topics; each record handed
 * out is leased, and acked, handed back (nack, expiry) or dead-lettered. Deliveries run on the
 * broker's read executor, one dispatch at a time per group, woken by appends, settles, new members
 * and the ticker. Every delivery and settle is journaled (one append per dispatch or per settle
 * call), so attempts and settled records survive a restart; leases do not: after a restart every
 * unsettled record is delivered again.
 */
public final class AckGroup extends Group {
  private static final Logger log = LoggerFactory.getLogger(AckGroup.class);
  private static final int MAX_RECORDS_PER_READ = 1000;
  private static final int MAX_BYTES_PER_READ = 4 << 20;
  private static final long FORGET_IDLE_MEMBER_MS = 60_000;
  /** How soon a dispatch put off for want of disk space is tried again. */
  private static final long DISK_RETRY_MS = 500;

  private final Map<Integer, AckPartition> partitions = new LinkedHashMap<>();
  private final Map<String, AckMember> members = new LinkedHashMap<>();
  private final Map<Integer, Runnable> waiters = new HashMap<>();
  private final DeadLetters deadLetters;
  private final AtomicBoolean dispatchQueued = new AtomicBoolean();
  private long nextDeadlineMs = Long.MAX_VALUE;
  private int rotation;
  private int memberRotation;

  /** Offsets of a range that could not be settled, and why. */
  public record Failure(String topic, int partition, long first, long last, BrokerError error, String message) {}

  /** A range of one partition's offsets, as acks, nacks and extensions name them. */
  public record OffsetRange(String topic, int partition, long first, long last) {}

  public record Nack(OffsetRange range, long delayMs, boolean reject) {}

  public record Extension(OffsetRange range, long leaseMs) {}

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
    ensurePartitions(m.topics());
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
      partitions.values().forEach(ap -> ap.releaseAll(m, now));
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
    if (m == null) {
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
  public synchronized List<Failure> settle(AckMember m, List<OffsetRange> acks, List<Nack> nacks,
      List<Extension> extensions) {
    if (!acks.isEmpty() || nacks.stream().anyMatch(Nack::reject)) {
      ctx.disk().check(DiskWrite.ACK); // before any offset changes; plain nacks and extensions stay in memory
    }
    long now = ctx.clock().millis();
    m.seen(now);
    List<Failure> failures = new ArrayList<>();
    Map<AckPartition, Ranges> settled = new LinkedHashMap<>();
    boolean freed = false;
    for (OffsetRange r : acks) {
      freed |= apply(m, r, failures, (ap, o) -> {
        ap.settle(o);
        settled.computeIfAbsent(ap, k -> new Ranges()).add(o);
      });
    }
    for (Nack n : nacks) {
      if (n.delayMs() < 0 || n.delayMs() > 86_400_000L) {
        failures.add(invalid(n.range(), "delay_ms must be between 0 and 86400000"));
        continue;
      }
      freed |= apply(m, n.range(), failures, (ap, o) -> {
        if (n.reject()) {
          if (deadLetter(ap, o, DeadLetters.REASON_REJECTED, now)) {
            settled.computeIfAbsent(ap, k -> new Ranges()).add(o);
          }
        } else {
          ap.release(o, now + n.delayMs());
          nextDeadlineMs = Math.min(nextDeadlineMs, now + n.delayMs());
        }
      });
    }
    for (Extension e : extensions) {
      if (e.leaseMs() < 1 || e.leaseMs() > 3_600_000L) {
        failures.add(invalid(e.range(), "lease_ms must be between 1 and 3600000"));
        continue;
      }
      apply(m, e.range(), failures, (ap, o) -> ap.extend(o, now + e.leaseMs()));
    }
    List<JournalEvent> events = new ArrayList<>();
    settled.forEach((ap, ranges) -> events.add(new JournalEvent.Settled(ap.key(), ranges.toArray())));
    write(events);
    if (freed) {
      requestDispatch();
    }
    return failures;
  }

  private interface OffsetAction {
    void apply(AckPartition ap, long offset);
  }

  /** Runs {@code action} on each offset of the range the member holds; failures in runs. */
  private boolean apply(AckMember m, OffsetRange r, List<Failure> failures, OffsetAction action) {
    if (r.last() < r.first() || r.first() < 0) {
      failures.add(invalid(r, "invalid range " + r.first() + ".." + r.last()));
      return false;
    }
    if (r.last() - r.first() >= 1_000_000) {
      failures.add(invalid(r, "a range may span at most 1000000 offsets"));
      return false;
    }
    AckPartition ap = stateOf(new TopicPartition(r.topic(), r.partition()));
    if (ap == null) {
      BrokerError why;
      String msg;
      try {
        Topic t = ctx.topics().get(r.topic());
        t.partition(r.partition());
        why = BrokerError.NOT_LEASED;
        msg = "group '" + name + "' has delivered nothing from " + r.topic() + "-" + r.partition();
      } catch (BrokerException e) {
        why = e.error();
        msg = e.getMessage();
      }
      failures.add(new Failure(r.topic(), r.partition(), r.first(), r.last(), why, msg));
      return false;
    }
    boolean any = false;
    // Only the window [start, next) needs a look per offset: below it everything is settled, above it
    // nothing was delivered. So a range's cost is bounded by the window, not by the (up to a million)
    // offsets a client names, repeated in every range of a request.
    long lo = Math.max(r.first(), ap.start());
    long hi = Math.min(r.last(), ap.next() - 1);
    AckPartition.Check runCheck = r.first() < lo ? AckPartition.Check.ALREADY_SETTLED : null;
    long runStart = r.first();
    for (long o = lo; o <= hi; o++) {
      AckPartition.Check c = ap.check(o, m);
      if (c == AckPartition.Check.OK) {
        action.apply(ap, o);
        any = true;
      }
      if (c != runCheck) {
        if (runCheck != null && runCheck != AckPartition.Check.OK) {
          failures.add(failure(r, runStart, o - 1, runCheck));
        }
        runCheck = c;
        runStart = o;
      }
    }
    if (hi < r.last() && runCheck != AckPartition.Check.NOT_DELIVERED) {
      long from = Math.max(r.first(), hi + 1);
      if (runCheck != null && runCheck != AckPartition.Check.OK) {
        failures.add(failure(r, runStart, from - 1, runCheck));
      }
      runCheck = AckPartition.Check.NOT_DELIVERED;
      runStart = from;
    }
    if (runCheck != null && runCheck != AckPartition.Check.OK) {
      failures.add(failure(r, runStart, r.last(), runCheck));
    }
    return any;
  }

  private Failure failure(OffsetRange r, long first, long last, AckPartition.Check c) {
    String offsets = first == last ? "offset " + first : "offsets " + first + ".." + last;
    String where = r.topic() + "-" + r.partition();
    return switch (c) {
      case NOT_DELIVERED -> new Failure(r.topic(), r.partition(), first, last, BrokerError.NOT_LEASED,
          where + ": " + offsets + " not delivered yet");
      case NOT_LEASED -> new Failure(r.topic(), r.partition(), first, last, BrokerError.NOT_LEASED,
          where + ": " + offsets + " not leased to this member");
      case LEASE_EXPIRED -> new Failure(r.topic(), r.partition(), first, last, BrokerError.LEASE_EXPIRED,
          where + ": the lease on " + offsets + " expired or was handed back; it is delivered again");
      case ALREADY_SETTLED -> new Failure(r.topic(), r.partition(), first, last, BrokerError.ALREADY_SETTLED,
          where + ": " + offsets + " already settled");
      case OK -> throw new IllegalArgumentException("not a failure");
    };
  }

  private static Failure invalid(OffsetRange r, String message) {
    return new Failure(r.topic(), r.partition(), r.first(), r.last(), BrokerError.INVALID_REQUEST, message);
  }

  /**
   * Deliveries a member's stream did not outlive: the member may never have got them, so they do not
   * count as attempts (journaled). Their leases stay as they are: the member's disconnect hands them
   * back, or a member that keeps its leases still holds them until they run out.
   */
  public synchronized void undeliver(AckMember m, List<SentDelivery> deliveries) {
    Map<AckPartition, Ranges> taken = new LinkedHashMap<>();
    for (SentDelivery d : deliveries) {
      AckPartition ap = stateOf(new TopicPartition(d.topic(), d.partition()));
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

  /** Asks for a dispatch on the executor; many asks before it runs make one. */
  public void requestDispatch() {
    if (dispatchQueued.compareAndSet(false, true)) {
      try {
        ctx.executor().execute(this::runDispatch);
      } catch (RuntimeException e) { // the executor stopped: the broker is closing
        dispatchQueued.set(false);
      }
    }
  }

  private void runDispatch() {
    dispatchQueued.set(false);
    try {
      synchronized (this) {
        if (!isDeleted()) {
          dispatch(ctx.clock().millis());
        }
      }
    } catch (RuntimeException e) {
      log.warn("Group {}: delivery failed: {}", name, e.toString());
    }
  }

  /** Hands records to members with room: due redeliveries first, then records never delivered. */
  private void dispatch(long now) {
    if (!ctx.disk().metadataAllowed()) { // deliveries are journaled before members see them
      nextDeadlineMs = Math.min(nextDeadlineMs, now + DISK_RETRY_MS);
      return;
    }
    List<AckMember> ready = new ArrayList<>();
    for (AckMember m : members.values()) {
      m.startDispatch();
      if (m.roomRecords() > 0) {
        ready.add(m);
      }
    }
    try {
      if (!ready.isEmpty() && !partitions.isEmpty()) {
        deliverTo(ready, now);
      }
    } finally {
      ready.forEach(AckMember::endDispatch); // an idle stream must not keep memory reserved
    }
  }

  /** Leases records to the members ready for them, journals the deliveries, and sends them. */
  private void deliverTo(List<AckMember> ready, long now) {
    long deadline = now + config.ackTimeoutMs();
    int maxAttempts = config.maxDeliveryAttempts();
    int maxUnsettled = config.maxUnsettled();
    Map<AckMember, List<Delivery>> out = new LinkedHashMap<>();
    List<JournalEvent> events = new ArrayList<>();
    List<AckPartition> order = new ArrayList<>(partitions.values());
    rotation = (rotation + 1) % order.size();
    for (int i = 0; i < order.size(); i++) {
      AckPartition ap = order.get((rotation + i) % order.size());
      Partition p = ap.partition();
      String topic = p.topic().name();
      List<AckMember> eligible = new ArrayList<>();
      for (AckMember m : ready) {
        if (m.topics().contains(topic)) {
          eligible.add(m);
        }
      }
      if (eligible.isEmpty()) {
        continue;
      }
      Ranges delivered = new Ranges();
      Ranges settled = new Ranges();
      try {
        for (long o = ap.nextDue(ap.start(), now); o >= 0; o = ap.nextDue(o + 1, now)) {
          if (maxAttempts > 0 && ap.attempts(o) >= maxAttempts) {
            if (deadLetter(ap, o, DeadLetters.REASON_MAX_ATTEMPTS, now)) {
              settled.add(o);
            }
            continue;
          }
          AckMember m = pick(eligible);
          if (m == null) {
            break;
          }
          LogRecord r = p.read(o, 1, Integer.MAX_VALUE).records().get(0);
          int attempt = ap.leaseAgain(o, r.payloadSize(), m, deadline);
          p.topic().traffic().fetched(1, r.payloadSize());
          delivered.add(o);
          out.computeIfAbsent(m, k -> new ArrayList<>()).add(new Delivery(topic, p.index(), r, attempt, deadline));
        }
        long end = p.endOffset();
        while (ap.roomForNew(maxUnsettled) && ap.next() < end) {
          AckMember m = pick(eligible);
          if (m == null) {
            break;
          }
          int want = (int) Math.min(Math.min(m.roomRecords(), MAX_RECORDS_PER_READ),
              maxUnsettled - (ap.next() - ap.start()));
          ReadResult rr = p.read(ap.next(), want, (int) Math.min(m.roomBytes(), MAX_BYTES_PER_READ));
          if (rr.records().isEmpty()) {
            break;
          }
          List<Delivery> batch = out.computeIfAbsent(m, k -> new ArrayList<>());
          p.topic().traffic().fetched(rr.records());
          for (LogRecord r : rr.records()) {
            int attempt = ap.leaseNew(r.offset(), r.payloadSize(), m, deadline);
            delivered.add(r.offset());
            batch.add(new Delivery(topic, p.index(), r, attempt, deadline));
          }
        }
        if (ap.next() >= p.endOffset() && ap.roomForNew(maxUnsettled)) {
          p.whenDataBeyond(ap.next(), waiters.computeIfAbsent(ap.key(), k -> this::requestDispatch));
        }
      } catch (BrokerException e) {
        if (e.error() == BrokerError.OFFSET_OUT_OF_RANGE && ap.start() < p.startOffset()) {
          dropDeleted(ap, events); // retention ran between its notice and this read
          requestDispatch();
        } else if (e.error() != BrokerError.UNKNOWN_TOPIC) {
          log.warn("Group {}: cannot deliver from {}: {}", name, p.name(), e.getMessage());
        }
      }
      if (!delivered.isEmpty()) {
        events.add(new JournalEvent.Delivered(ap.key(), delivered.toArray()));
        nextDeadlineMs = Math.min(nextDeadlineMs, deadline);
      }
      if (!settled.isEmpty()) {
        events.add(new JournalEvent.Settled(ap.key(), settled.toArray()));
      }
    }
    write(events); // attempts are counted on disk before any member sees the records
    out.forEach((m, deliveries) -> m.sink().deliver(deliveries));
  }

  /**
   * Retention deleted records of a partition: what the group had not settled there is gone, so it is
   * settled now (journaled, leases handed back) and counted. Also run after recovery, since the log
   * start may have moved while the broker was down.
   */
  synchronized void logStartAdvanced(Partition p) {
    AckPartition ap = stateOf(tp(p));
    if (ap == null || ap.partition() != p || ap.start() >= p.startOffset()) {
      return;
    }
    List<JournalEvent> events = new ArrayList<>();
    dropDeleted(ap, events);
    write(events);
    requestDispatch();
  }

  private void dropDeleted(AckPartition ap, List<JournalEvent> events) {
    Partition p = ap.partition();
    long logStart = p.startOffset();
    long before = ap.deletedUnsettled();
    Ranges settled = new Ranges();
    boolean skipped = ap.dropBelow(logStart, settled);
    if (!settled.isEmpty()) {
      events.add(new JournalEvent.Settled(ap.key(), settled.toArray()));
    }
    if (skipped) {
      events.add(new JournalEvent.AckStart(ap.key(), ap.start()));
    }
    long dropped = ap.deletedUnsettled() - before;
    if (dropped > 0) {
      log.warn("Group {}: retention deleted {} records of {} before they were settled (the log now starts at {})",
          name, dropped, p.name(), logStart);
    }
  }

  /** Round robin over the members with room left whose stream can send now; null when none can. */
  private AckMember pick(List<AckMember> eligible) {
    for (int i = 0; i < eligible.size(); i++) {
      AckMember m = eligible.get((memberRotation + i) % eligible.size());
      if (m.roomRecords() > 0 && m.canSend()) {
        memberRotation = (memberRotation + i + 1) % eligible.size();
        return m;
      }
    }
    return null;
  }

  /** Writes a record to the dead-letter topic and settles it; false (it stays) when that fails. */
  private boolean deadLetter(AckPartition ap, long offset, String reason, long now) {
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
      nextDeadlineMs = Math.min(nextDeadlineMs, now + config.ackTimeoutMs());
      return false;
    }
  }

  /** Creates the state of partitions the group has not consumed yet, where auto.offset.reset says. */
  private void ensurePartitions(Set<String> topics) {
    if (!ctx.disk().metadataAllowed()) {
      return; // their starts are journaled: the tick adds them once space is back
    }
    List<JournalEvent> events = new ArrayList<>();
    for (String t : topics) {
      Topic topic;
      try {
        topic = ctx.topics().get(t);
      } catch (BrokerException e) {
        continue;
      }
      boolean known = topic.partitions().stream().anyMatch(p -> stateOf(tp(p)) != null);
      for (Partition p : topic.partitions()) {
        if (stateOf(tp(p)) != null) {
          continue;
        }
        // A partition added to a topic the group already reads starts at its beginning: nothing is skipped.
        long start = !known && !config.startAtEarliest() ? p.endOffset() : p.startOffset();
        int key = keyOf(p, events);
        events.add(new JournalEvent.AckStart(key, start));
        add(new AckPartition(p, key, start));
      }
    }
    write(events);
  }

  private static TopicPartition tp(Partition p) {
    return new TopicPartition(p.topic().name(), p.index());
  }

  private void add(AckPartition ap) {
    partitions.put(ap.key(), ap);
  }

  /** The group's state of a partition, found through its journal key. */
  private AckPartition stateOf(TopicPartition tp) {
    Keyed k = keyed(tp);
    return k == null ? null : partitions.get(k.key());
  }

  /** Moves the start of partitions (a reset while no member is connected); discards their window. */
  synchronized void restartAt(Map<Partition, Long> offsets) {
    requireNoStreams("reset the offsets of");
    ctx.disk().check(DiskWrite.GROUP_RESET);
    List<JournalEvent> events = new ArrayList<>();
    offsets.forEach((p, offset) -> {
      int key = keyOf(p, events);
      AckPartition ap = partitions.get(key);
      if (ap == null) {
        ap = new AckPartition(p, key, offset);
        add(ap);
      }
      ap.restart(offset);
      events.add(new JournalEvent.AckStart(key, offset));
    });
    write(events);
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
    partitions.values().forEach(ap -> out.put(tp(ap.partition()), new CommittedOffset(ap.start(), "", 0)));
    return out;
  }

  @Override
  synchronized void tick(long now) {
    if (now >= nextDeadlineMs) {
      long min = Long.MAX_VALUE;
      int expired = 0;
      for (AckPartition ap : partitions.values()) {
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
    Set<String> subscribed = new java.util.HashSet<>();
    members.values().forEach(m -> subscribed.addAll(m.topics()));
    int before = partitions.size();
    ensurePartitions(subscribed);
    if (partitions.size() != before) {
      requestDispatch();
    }
  }

  @Override
  public synchronized GroupView describe() {
    List<GroupView.Member> ms = new ArrayList<>();
    for (AckMember m : members.values()) {
      List<TopicPartition> topics = m.topics().stream().sorted().map(t -> new TopicPartition(t, -1)).toList();
      ms.add(new GroupView.Member(m.id(), m.keepsLeases() ? m.id() : "", m.address(), topics, m.lastSeenMs(),
          m.leasedRecords(), m.sink() != null));
    }
    List<GroupView.PartitionView> parts = new ArrayList<>();
    for (AckPartition ap : partitions.values()) {
      Partition p = ap.partition();
      parts.add(new GroupView.PartitionView(tp(p), ap.start(), p.startOffset(), p.endOffset(), "", ap.unsettled(),
          ap.deadLettered(), ap.redeliveries(), ap.deletedUnsettled()));
    }
    parts.sort((a, b) -> a.tp().compareTo(b.tp()));
    return new GroupView(name, mode(), state(), 0, config.effective(), ms, parts);
  }

  @Override
  protected void replay(JournalEvent event) {
    if (event instanceof JournalEvent.AckStart s) {
      Partition p = partitionOf(s.key());
      if (p != null) {
        AckPartition ap = partitions.get(s.key());
        if (ap == null) {
          add(new AckPartition(p, s.key(), s.start()));
        } else {
          ap.restart(s.start());
        }
      }
    } else if (event instanceof JournalEvent.AckWindow w) {
      Partition p = partitionOf(w.key());
      if (p != null) {
        AckPartition ap = new AckPartition(p, w.key(), w.start());
        ap.replayWindow(w.start(), w.next(), w.attempts());
        add(ap);
      }
    } else if (event instanceof JournalEvent.Delivered d) {
      AckPartition ap = partitions.get(d.key());
      if (ap != null) {
        long[] r = d.ranges();
        for (int i = 0; i < r.length; i += 2) {
          ap.replayDelivered(r[i], r[i + 1]);
        }
      }
    } else if (event instanceof JournalEvent.Undelivered u) {
      AckPartition ap = partitions.get(u.key());
      if (ap != null) {
        long[] r = u.ranges();
        for (int i = 0; i < r.length; i += 2) {
          ap.replayUndelivered(r[i], r[i + 1]);
        }
      }
    } else if (event instanceof JournalEvent.Settled st) {
      AckPartition ap = partitions.get(st.key());
      if (ap != null) {
        long[] r = st.ranges();
        for (int i = 0; i < r.length; i += 2) {
          ap.replaySettled(r[i], r[i + 1]);
        }
      }
    } else if (event instanceof JournalEvent.Forget f) {
      partitions.remove(f.key());
    }
  }

  private Partition partitionOf(int key) {
    Keyed k = keyed(key);
    return k == null ? null : currentPartition(k);
  }

  @Override
  protected void afterReplay() {
    nextDeadlineMs = 0; // every unsettled record is due at once: leases do not survive a restart
  }

  @Override
  protected List<JournalEvent> snapshotState() {
    List<JournalEvent> events = new ArrayList<>();
    for (AckPartition ap : partitions.values()) {
      events.add(new JournalEvent.AckWindow(ap.key(), ap.start(), ap.next(), ap.snapshot()));
    }
    return events;
  }

  @Override
  synchronized void topicDeleted(Topic topic) {
    for (int key : forgetTopic(topic)) {
      AckPartition ap = partitions.remove(key);
      if (ap != null) {
        ap.restart(ap.next()); // gives the members' room back
      }
      waiters.remove(key);
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
