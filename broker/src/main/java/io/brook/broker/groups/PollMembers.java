package io.brook.broker.groups;

import io.brook.broker.delivery.AckMember;
import io.brook.broker.delivery.AckPartition;
import io.brook.broker.delivery.Delivery;
import io.brook.broker.delivery.SentDelivery;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.errors.Ownership;
import io.brook.broker.groups.poll.PollStart;
import io.brook.broker.groups.share.ShareFetchSink;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The poll members of an ack group (HTTP consumers, D70), beside its gRPC and Kafka share members:
 * each is an {@link AckMember} named by its consumer name, which takes records only while one of its
 * receives waits ({@link ShareFetchSink}, as a share member's fetch does) and keeps them leased
 * between receives until it settles them or the group's ack timeout runs out. A member that sends
 * nothing (no receive waiting, no settle) for the group's share.session.timeout.ms leaves and hands
 * its leases back. In memory, as leases are. Guarded by the group's monitor.
 */
final class PollMembers {
  private static final Logger log = LoggerFactory.getLogger(AckGroup.class);
  /** The most poll members one group holds. */
  static final int MAX_MEMBERS = 1000;
  static final int MAX_NAME = 255;

  /** One poll member. */
  private static final class Poll {
    final AckMember member;
    final ShareFetchSink sink = new ShareFetchSink();
    long lastSeenMs;

    Poll(AckMember member) {
      this.member = member;
    }
  }

  private final AckGroup group;
  private final Map<String, Poll> byName = new LinkedHashMap<>();

  PollMembers(AckGroup group) {
    this.group = group;
  }

  boolean has(String name) {
    return byName.containsKey(name);
  }

  /**
   * A receive: the member joins (or is found, and its topics follow the request's), and waits for up
   * to {@code maxRecords} more records than it holds, of at most {@code maxBytes} payload bytes (at
   * least one record). A receive still waiting for this member ends empty first.
   */
  PollStart receive(String name, List<String> topics, long maxRecords, long maxBytes, String address,
      String principal, long now) {
    if (name == null || name.isEmpty() || name.length() > MAX_NAME) {
      throw new BrokerException(BrokerError.INVALID_REQUEST, "a consumer names itself (1 to " + MAX_NAME
          + " characters)");
    }
    Poll p = byName.get(name);
    if (p == null) {
      if (group.isShareMember(name) || group.memberById(name) != null) {
        throw new BrokerException(BrokerError.INVALID_REQUEST, "consumer name '" + name + "' is taken by a gRPC or"
            + " Kafka share member of group '" + group.name() + "'");
      }
      if (byName.size() >= MAX_MEMBERS) {
        throw new BrokerException(BrokerError.LIMIT_EXCEEDED, "group '" + group.name() + "' has " + MAX_MEMBERS
            + " HTTP consumers, the most a group holds");
      }
      p = new Poll(new AckMember(name, true, principal));
      byName.put(name, p);
      group.addMember(p.member);
      log.info("Group {}: HTTP consumer {} joined ({} members)", group.name(), name, group.memberCount());
    } else {
      Ownership.check(p.member.owner(), principal, "consumer '" + name + "' of group '" + group.name() + "'");
    }
    p.lastSeenMs = now;
    p.member.connect(p.sink, Set.copyOf(topics), address, now);
    group.windows().ensure(p.member.topics());
    p.member.flowControl(p.member.leasedRecords() + Math.max(1, maxRecords), Long.MAX_VALUE);
    CompletableFuture<List<Delivery>> records = p.sink.await(maxBytes);
    group.requestDispatch();
    return new PollStart(name, records, p.sink, group.config.ackTimeoutMs());
  }

  /** The member that settles as {@code name}, if the caller made it. */
  AckMember settler(String name, String principal, long now) {
    Poll p = byName.get(name);
    if (p == null) {
      throw new BrokerException(BrokerError.UNKNOWN_MEMBER_ID, "consumer '" + name + "' is not in group '"
          + group.name() + "' (it never received, it left or timed out, or the broker restarted): receive again");
    }
    Ownership.check(p.member.owner(), principal, "consumer '" + name + "' of group '" + group.name() + "'");
    p.lastSeenMs = now;
    return p.member;
  }

  /**
   * A receive's answer never reached its consumer (the connection closed first): its records go back
   * to the group at once, and these deliveries do not count as attempts.
   */
  void giveBack(String name, List<Delivery> deliveries, long now) {
    Poll p = byName.get(name);
    if (p == null || deliveries.isEmpty()) {
      return; // it left: its leases went back then
    }
    group.undeliver(p.member, deliveries.stream().map(SentDelivery::of).toList());
    for (Delivery d : deliveries) {
      AckPartition ap = group.windows().of(new TopicPartition(d.topic(), d.partition()));
      long o = d.record().offset();
      if (ap != null && ap.check(o, p.member) == AckPartition.Check.OK) {
        ap.release(o, now);
      }
    }
    group.requestDispatch();
  }

  /** The member leaves at once: what it holds goes back to the group. */
  void leave(String name, String principal, long now) {
    Poll p = byName.get(name);
    if (p == null) {
      throw new BrokerException(BrokerError.UNKNOWN_MEMBER_ID, "consumer '" + name + "' is not in group '"
          + group.name() + "'");
    }
    Ownership.check(p.member.owner(), principal, "consumer '" + name + "' of group '" + group.name() + "'");
    remove(p, "left", now);
  }

  /** Members with no receive waiting that sent nothing for the session timeout leave. */
  void expire(long now) {
    long timeout = group.config.shareSessionTimeoutMs();
    for (Poll p : new ArrayList<>(byName.values())) {
      if (p.sink.sendableBytes() > 0) {
        p.lastSeenMs = now; // a receive waits: the session runs from its end
      } else if (now - p.lastSeenMs > timeout) {
        remove(p, "sent nothing for " + timeout + " ms (share.session.timeout.ms)", now);
      }
    }
  }

  private void remove(Poll p, String why, long now) {
    byName.remove(p.member.id());
    p.sink.end();
    p.sink.drainLeftOver();
    group.windows().all().forEach(ap -> ap.releaseAll(p.member, now));
    group.removeMember(p.member);
    group.requestDispatch();
    log.info("Group {}: HTTP consumer {} {} ({} members)", group.name(), p.member.id(), why, group.memberCount());
  }
}
