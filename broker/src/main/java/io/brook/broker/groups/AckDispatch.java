package io.brook.broker.groups;

import io.brook.broker.delivery.AckMember;
import io.brook.broker.delivery.AckPartition;
import io.brook.broker.delivery.DeadLetters;
import io.brook.broker.delivery.Delivery;
import io.brook.broker.delivery.Ranges;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.records.LogRecord;
import io.brook.broker.storage.ReadResult;
import io.brook.broker.topics.Partition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An ack group's deliveries: hands records to the members with room, due redeliveries first, then
 * records never delivered, and journals them before any member sees them. Runs on the broker's read
 * executor, at most one queued per group, under the group's monitor; woken by appends (a waiter on
 * each caught-up partition), settles, new members, flow control and the group's tick.
 */
final class AckDispatch {
  private static final Logger log = LoggerFactory.getLogger(AckGroup.class);
  private static final int MAX_RECORDS_PER_READ = 1000;
  private static final int MAX_BYTES_PER_READ = 4 << 20;
  /** How soon a dispatch put off for want of disk space is tried again. */
  private static final long DISK_RETRY_MS = 500;

  private final AckGroup group;
  private final AtomicBoolean queued = new AtomicBoolean();
  /** The waiter left on each caught-up partition, by journal key (one per partition, reused). */
  private final Map<Integer, Runnable> waiters = new HashMap<>();
  private int rotation;
  private int memberRotation;

  AckDispatch(AckGroup group) {
    this.group = group;
  }

  /** Asks for a dispatch on the executor; many asks before it runs make one. */
  void request() {
    if (queued.compareAndSet(false, true)) {
      try {
        group.ctx.executor().execute(this::run);
      } catch (RuntimeException e) { // the executor stopped: the broker is closing
        queued.set(false);
      }
    }
  }

  /** The partition is gone: its waiter is not left again. Under the group's monitor. */
  void forget(int key) {
    waiters.remove(key);
  }

  private void run() {
    queued.set(false);
    try {
      synchronized (group) {
        if (!group.isDeleted()) {
          dispatch(group.ctx.clock().millis());
        }
      }
    } catch (RuntimeException e) {
      log.warn("Group {}: delivery failed: {}", group.name(), e.toString());
    }
  }

  /** Hands records to members with room: due redeliveries first, then records never delivered. */
  private void dispatch(long now) {
    if (!group.ctx.disk().metadataAllowed()) { // deliveries are journaled before members see them
      group.dueBy(now + DISK_RETRY_MS);
      return;
    }
    List<AckMember> ready = new ArrayList<>();
    for (AckMember m : group.members()) {
      m.startDispatch();
      if (m.roomRecords() > 0) {
        ready.add(m);
      }
    }
    try {
      if (!ready.isEmpty() && group.windows().size() > 0) {
        deliverTo(ready, now);
      }
    } finally {
      ready.forEach(AckMember::endDispatch); // an idle stream must not keep memory reserved
    }
  }

  /** Leases records to the members ready for them, journals the deliveries, and sends them. */
  private void deliverTo(List<AckMember> ready, long now) {
    GroupConfig config = group.config;
    long deadline = now + config.ackTimeoutMs();
    int maxAttempts = config.maxDeliveryAttempts();
    int maxUnsettled = config.maxUnsettled();
    Map<AckMember, List<Delivery>> out = new LinkedHashMap<>();
    List<JournalEvent> events = new ArrayList<>();
    List<AckPartition> order = new ArrayList<>(group.windows().all());
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
            if (group.deadLetter(ap, o, DeadLetters.REASON_MAX_ATTEMPTS, now)) {
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
          p.whenDataBeyond(ap.next(), waiters.computeIfAbsent(ap.key(), k -> this::request));
        }
      } catch (BrokerException e) {
        if (e.error() == BrokerError.OFFSET_OUT_OF_RANGE && ap.start() < p.startOffset()) {
          group.windows().dropDeleted(ap, events); // retention ran between its notice and this read
          request();
        } else if (e.error() != BrokerError.UNKNOWN_TOPIC) {
          log.warn("Group {}: cannot deliver from {}: {}", group.name(), p.name(), e.getMessage());
        }
      }
      if (!delivered.isEmpty()) {
        events.add(new JournalEvent.Delivered(ap.key(), delivered.toArray()));
        group.dueBy(deadline);
      }
      if (!settled.isEmpty()) {
        events.add(new JournalEvent.Settled(ap.key(), settled.toArray()));
      }
    }
    group.write(events); // attempts are counted on disk before any member sees the records
    out.forEach((m, deliveries) -> m.sink().deliver(deliveries));
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
}
