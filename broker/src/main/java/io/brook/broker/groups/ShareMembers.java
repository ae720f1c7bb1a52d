package io.brook.broker.groups;

import io.brook.broker.delivery.AckMember;
import io.brook.broker.delivery.Delivery;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.errors.Ownership;
import io.brook.broker.groups.consumer.TopicPartitions;
import io.brook.broker.groups.share.ShareFetchSink;
import io.brook.broker.groups.share.ShareFetchStart;
import io.brook.broker.groups.share.ShareHeartbeatAnswer;
import io.brook.broker.groups.share.ShareSession;
import io.brook.broker.topics.Topic;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka share members (KIP-932) of an ack group, beside its gRPC members: each is an
 * {@link AckMember} named by the id its client made, whose records go out in its ShareFetch answers
 * ({@link ShareFetchSink}) and who keeps them leased between fetches. Every member is assigned every
 * partition of the topics it subscribes to: the group's dispatch shares the records between members
 * one by one, as it does for gRPC members, so no partition needs an owner. The group epoch moves at
 * every join, leave and assignment change; a member's epoch is the group epoch at its last assignment.
 * Membership and sessions live in memory, as leases do: after a restart the members join again.
 * Guarded by the group's monitor.
 */
final class ShareMembers {
  private static final Logger log = LoggerFactory.getLogger(AckGroup.class);
  /** The most Kafka share members one group holds (Kafka's group.share.max.size is 200). */
  static final int MAX_MEMBERS = 1000;

  /** One Kafka share member. */
  private static final class Share {
    final AckMember member;
    final ShareFetchSink sink = new ShareFetchSink();
    String clientId = "";
    Set<String> subscribed = Set.of();
    List<TopicPartitions> assigned = List.of();
    int epoch;
    long lastHeartbeatMs;
    ShareSession session;

    Share(AckMember member) {
      this.member = member;
    }
  }

  private final AckGroup group;
  private final Map<String, Share> byId = new LinkedHashMap<>();
  private int groupEpoch;

  ShareMembers(AckGroup group) {
    this.group = group;
  }

  int groupEpoch() {
    return groupEpoch;
  }

  boolean has(String memberId) {
    return byId.containsKey(memberId);
  }

  /** The Kafka client id of a share member, or null for a member of another door. */
  String clientIdOf(String memberId) {
    Share s = byId.get(memberId);
    return s == null ? null : s.clientId;
  }

  ShareHeartbeatAnswer heartbeat(String memberId, int epoch, List<String> topics, String clientId, String host,
      String principal, long now) {
    int interval = group.config.shareHeartbeatIntervalMs();
    if (memberId == null || memberId.isEmpty() || memberId.length() > 255) {
      throw new MemberFaultException(MemberFault.INVALID_REQUEST, "a share member names its id (1 to 255 characters)");
    }
    Share s = byId.get(memberId);
    if (s != null) {
      Ownership.check(s.member.owner(), principal, "share member '" + memberId + "' of group '" + group.name() + "'");
    }
    if (epoch == -1) {
      if (s != null) {
        remove(s, "left", now);
      }
      return new ShareHeartbeatAnswer(memberId, -1, interval, null);
    }
    if (epoch == 0) {
      if (topics == null || topics.isEmpty()) {
        throw new MemberFaultException(MemberFault.INVALID_REQUEST, "a joining share member names the topics it"
            + " subscribes to");
      }
      if (s == null) {
        if (byId.size() >= MAX_MEMBERS) {
          throw new MemberFaultException(MemberFault.GROUP_MAX_SIZE_REACHED, "group '" + group.name() + "' has "
              + MAX_MEMBERS + " Kafka share members, the most a group holds");
        }
        if (group.memberById(memberId) != null) {
          throw new MemberFaultException(MemberFault.INVALID_REQUEST, "member id '" + memberId + "' is taken by a"
              + " gRPC member of group '" + group.name() + "'");
        }
        s = new Share(new AckMember(memberId, true, principal));
        byId.put(memberId, s);
        group.addMember(s.member);
        s.member.flowControl(0, 0); // nothing goes out before its first fetch
        log.info("Group {}: Kafka share member {} joined ({} members)", group.name(), memberId,
            group.memberCount());
      }
      s.clientId = clientId;
      s.subscribed = Set.copyOf(topics);
      s.member.connect(s.sink, s.subscribed, host, now);
      s.lastHeartbeatMs = now;
      group.windows().ensure(s.subscribed);
      s.assigned = assignment(s.subscribed);
      s.epoch = ++groupEpoch;
      return new ShareHeartbeatAnswer(memberId, s.epoch, interval, s.assigned);
    }
    if (s == null) {
      throw new MemberFaultException(MemberFault.UNKNOWN_MEMBER_ID, "share member '" + memberId + "' is not in group '"
          + group.name() + "' (it left, timed out, or the broker restarted): join again with epoch 0");
    }
    if (epoch > s.epoch) {
      throw new MemberFaultException(MemberFault.FENCED_MEMBER_EPOCH, "share member '" + memberId + "' sent epoch "
          + epoch + ", the broker has " + s.epoch);
    }
    s.lastHeartbeatMs = now;
    s.member.seen(now);
    if (topics != null && !Set.copyOf(topics).equals(s.subscribed)) {
      s.subscribed = Set.copyOf(topics);
      s.member.connect(s.sink, s.subscribed, s.member.address(), now);
      group.windows().ensure(s.subscribed);
      group.requestDispatch();
    }
    List<TopicPartitions> current = assignment(s.subscribed);
    if (!current.equals(s.assigned)) {
      s.assigned = current;
      s.epoch = ++groupEpoch;
      return new ShareHeartbeatAnswer(memberId, s.epoch, interval, s.assigned);
    }
    // An older epoch: the member missed the answer that moved it on; it gets its assignment again.
    return new ShareHeartbeatAnswer(memberId, s.epoch, interval, epoch < s.epoch ? s.assigned : null);
  }

  /** Every partition of the subscribed topics that exist, by topic id. */
  private List<TopicPartitions> assignment(Set<String> topics) {
    List<TopicPartitions> out = new ArrayList<>();
    for (String t : new TreeSet<>(topics)) {
      Topic topic;
      try {
        topic = group.ctx.topics().get(t);
      } catch (BrokerException e) {
        continue; // not there (yet): assigned once it is
      }
      List<Integer> ps = new ArrayList<>();
      for (int i = 0; i < topic.partitions().size(); i++) {
        ps.add(i);
      }
      out.add(new TopicPartitions(topic.id(), List.copyOf(ps)));
    }
    return List.copyOf(out);
  }

  /**
   * A ShareFetch or ShareAcknowledge: checks and moves the member's share session, applies the
   * acknowledgements, and, when {@code fetch}, waits for records. Epoch 0 opens a session (no
   * acknowledgements allowed), -1 closes it after its acknowledgements and hands back what the member
   * still holds.
   */
  ShareFetchStart fetch(String memberId, String principal, int epoch, Collection<TopicPartition> added,
      Collection<TopicPartition> forgotten, Settlement acks, boolean fetch, long maxRecords, long maxBytes, long now) {
    Share s = byId.get(memberId);
    if (s == null) {
      throw new MemberFaultException(MemberFault.UNKNOWN_MEMBER_ID, "share member '" + memberId + "' is not in group '"
          + group.name() + "': it joins with ShareGroupHeartbeat first");
    }
    Ownership.check(s.member.owner(), principal, "share member '" + memberId + "' of group '" + group.name() + "'");
    boolean acking = !acks.acks().isEmpty() || !acks.nacks().isEmpty() || !acks.extensions().isEmpty();
    if (epoch == 0) {
      if (acking) {
        throw new MemberFaultException(MemberFault.INVALID_REQUEST, "acknowledgements need an open share session:"
            + " a request with epoch 0 may not carry them");
      }
      s.session = new ShareSession();
    } else {
      if (s.session == null) {
        throw ShareSession.notFound(memberId);
      }
      if (epoch != -1) {
        s.session.advance(epoch);
      }
    }
    s.member.seen(now);
    if (!acks.acks().isEmpty() || acks.nacks().stream().anyMatch(Settlement.Nack::reject)) {
      // After the session moved on: the client moves its epoch on after any refusal but a session one.
      group.ctx.disk().check(io.brook.broker.disk.DiskWrite.ACK);
    }
    long lockMs = group.config.ackTimeoutMs();
    List<Settlement.Failure> failures = acking ? group.settle(s.member, renewedFor(acks, lockMs)) : List.of();
    if (epoch == -1) {
      s.session = null;
      s.sink.end();
      handBack(s, now);
      return new ShareFetchStart(failures, null, s.sink, lockMs);
    }
    s.session.add(added);
    s.session.forget(forgotten);
    if (!fetch || s.session.partitions().isEmpty()) {
      return new ShareFetchStart(failures, null, s.sink, lockMs);
    }
    s.member.flowControl(s.member.leasedRecords() + Math.max(1, maxRecords), Long.MAX_VALUE);
    CompletableFuture<List<Delivery>> records = s.sink.await(maxBytes);
    group.requestDispatch();
    return new ShareFetchStart(failures, records, s.sink, lockMs);
  }

  /** Renewals name no duration (0): Kafka renews a lock for the group's lock duration. */
  private static Settlement renewedFor(Settlement acks, long lockMs) {
    if (acks.extensions().isEmpty()) {
      return acks;
    }
    return new Settlement(acks.acks(), acks.nacks(), acks.extensions().stream()
        .map(e -> e.leaseMs() == 0 ? new Settlement.Extension(e.range(), lockMs) : e).toList());
  }

  /** Members whose heartbeats stopped for longer than the session timeout leave. */
  void expire(long now) {
    long timeout = group.config.shareSessionTimeoutMs();
    for (Iterator<Share> it = new ArrayList<>(byId.values()).iterator(); it.hasNext(); ) {
      Share s = it.next();
      if (now - s.lastHeartbeatMs > timeout) {
        remove(s, "sent no heartbeat for " + timeout + " ms (share.session.timeout.ms)", now);
      }
    }
  }

  /** Every share member leaves (the group is closing or deleted). */
  void closeAll(long now) {
    new ArrayList<>(byId.values()).forEach(s -> remove(s, "closed", now));
  }

  private void remove(Share s, String why, long now) {
    byId.remove(s.member.id());
    s.session = null;
    s.sink.end();
    handBack(s, now);
    group.removeMember(s.member);
    groupEpoch++;
    log.info("Group {}: Kafka share member {} {} ({} members)", group.name(), s.member.id(), why, group.memberCount());
  }

  /** What the member holds goes back to the group, for the other members (already counted as delivered). */
  private void handBack(Share s, long now) {
    s.sink.drainLeftOver();
    group.windows().all().forEach(ap -> ap.releaseAll(s.member, now));
    group.requestDispatch();
  }
}
