package io.brook.client.consumer;

import io.brook.client.TopicPartition;
import io.brook.client.errors.BrookException;
import io.brook.client.errors.IllegalGenerationException;
import io.brook.client.errors.MemberReplacedException;
import io.brook.client.errors.UnknownGroupException;
import io.brook.client.errors.UnknownMemberException;
import io.brook.client.internal.ErrorMapping;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.HeartbeatRequest;
import io.brook.protocol.v1.HeartbeatResponse;
import io.brook.protocol.v1.JoinGroupRequest;
import io.brook.protocol.v1.JoinGroupResponse;
import io.brook.protocol.v1.LeaveGroupRequest;
import io.brook.protocol.v1.TopicPartitions;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The consumer's membership of its group, shared between the polling thread (which joins, leaves,
 * and reacts to what happened) and the heartbeat thread (which keeps the session alive, notices a
 * rebalance or a removal, and leaves the group when the application stops polling). Every field
 * is guarded by {@code this}.
 */
final class Membership {
  private static final System.Logger LOG = System.getLogger(Membership.class.getName());
  /** Beyond the rebalance timeout, how long a JoinGroup may take before the client gives up on it. */
  private static final long JOIN_GRACE_MS = 15_000;

  private final ConsumerConfig config;
  private final GroupServiceGrpc.GroupServiceBlockingStub groups;
  private Thread heartbeater;
  private final UnknownTopics unknownTopics = new UnknownTopics();
  private final StaticMembership statics;

  private String memberId = "";
  private int generation;
  /** Holds the assignment of {@code generation}. */
  private boolean joined;
  /** A heartbeat answered rejoin=true: revoke, then join again. */
  private boolean rejoinRequested;
  /** Removed, fenced, or left for not polling: the partitions are gone without a revoke. */
  private boolean lost;
  private boolean closed;
  private int heartbeatIntervalMs = 3000;
  private long nextHeartbeatNanos;
  private boolean inPoll;
  private long lastPollNanos = System.nanoTime();
  // subscribe(Pattern): the regex the joins send instead of topics ("" for none), and the topics the
  // broker matched at the last join.
  private String topicPattern = "";
  private Set<String> matchedTopics = Set.of();
  /** The cooperative rejoin under way (CooperativeRejoin), else null: its pending JoinGroup keeps the session, no heartbeat. */
  private Object joining;
  /**
   * Counts unsubscribes and the close: a JoinGroup sent before one of them is answered for a membership
   * that is over, and is not recorded (Kafka drops such a join's outcome too).
   */
  private int leaveEpoch;

  Membership(ConsumerConfig config, GroupServiceGrpc.GroupServiceBlockingStub groups) {
    this.config = config;
    this.groups = groups;
    this.statics = new StaticMembership(config);
  }

  /** What the polling thread should do before it fetches. */
  enum Pending { NOTHING, REVOKE_AND_REJOIN, LOST, JOIN }

  synchronized Pending pending() {
    if (lost) {
      return Pending.LOST;
    }
    if (!joined) {
      return Pending.JOIN;
    }
    return rejoinRequested ? Pending.REVOKE_AND_REJOIN : Pending.NOTHING;
  }

  /** The subscription changed: revoke and join again at the next poll. */
  synchronized void requestRejoin() {
    if (joined && !lost) {
      rejoinRequested = true;
    }
  }

  /** Wakes a poll waiting in {@link #awaitChange} (wakeup()). */
  synchronized void poke() {
    notifyAll();
  }

  /** The polling thread took note of the loss: the next step is a join. */
  synchronized void acknowledgeLost() {
    lost = statics.isReplaced(); // fenced for good: no join follows
    joined = false;
    rejoinRequested = false; // the join that follows is the rejoin
  }

  /** The polling thread revoked its partitions: the next step is a join. */
  synchronized void revoked() {
    joined = false;
    rejoinRequested = false; // the join that follows is the rejoin
  }

  /** The membership a join is sent for: its answer is recorded only while no unsubscribe or close came since. */
  synchronized int leaveEpoch() {
    return leaveEpoch;
  }

  /**
   * One JoinGroup (blocking until the rebalance completes) for these topics or this pattern ("" for
   * none: never both), reporting the partitions a cooperative member still owns; answers the member's
   * partitions. Run by the polling thread (through {@link Calls}), or by a cooperative rejoin's thread.
   *
   * @param epoch {@link #leaveEpoch()} when the join was decided: when the member unsubscribed or
   *     closed since, neither its answer nor its failure changes this membership
   */
  List<TopicPartition> join(Collection<String> topics, String pattern, Collection<TopicPartition> owned, int epoch) {
    String id;
    synchronized (this) {
      checkEpoch(epoch);
      id = memberId;
    }
    JoinGroupRequest request = JoinGroupRequest.newBuilder().setGroup(config.groupId()).setMemberId(id)
        .setClientId(config.clientId()).addAllTopics(topics).setSessionTimeoutMs(config.sessionTimeoutMs())
        .setRebalanceTimeoutMs(config.maxPollIntervalMs()).setTopicPattern(pattern)
        .setInstanceId(statics.instanceId())
        .setCooperative(config.rebalanceProtocol() == RebalanceProtocol.COOPERATIVE)
        .addAllOwned(OffsetCalls.byTopic(owned)).build();
    JoinGroupResponse response;
    try {
      response = groups.withDeadlineAfter(config.maxPollIntervalMs() + JOIN_GRACE_MS, TimeUnit.MILLISECONDS)
          .joinGroup(request);
    } catch (RuntimeException e) {
      BrookException b = ErrorMapping.fromThrowable(e);
      synchronized (this) {
        checkEpoch(epoch);
        if (b instanceof UnknownMemberException) {
          memberId = ""; // removed meanwhile (or the broker restarted): join as a new member
          if (joined) {
            lost = true; // a cooperative member's partitions may be another's already: lost, not revoked
            notifyAll();
          }
        }
        if (b instanceof MemberReplacedException r) {
          statics.replaced(r);
          lost = true;
          notifyAll();
        }
      }
      throw b;
    }
    List<TopicPartition> assigned = new ArrayList<>();
    for (TopicPartitions tps : response.getAssignmentList()) {
      for (int p : tps.getPartitionsList()) {
        assigned.add(new TopicPartition(tps.getTopic(), p));
      }
    }
    synchronized (this) {
      checkEpoch(epoch);
      memberId = response.getMemberId();
      generation = response.getGeneration();
      heartbeatIntervalMs = response.getHeartbeatIntervalMs() > 0 ? response.getHeartbeatIntervalMs() : 3000;
      joined = true;
      lost = false;
      if (pattern.equals(topicPattern)) { // else the subscription changed meanwhile: the next join tells
        matchedTopics = Set.copyOf(response.getTopicsList());
      }
      nextHeartbeatNanos = System.nanoTime(); // at once: the broker holds it until the group changes
      startHeartbeats();
      notifyAll();
    }
    unknownTopics.update(config.groupId(), response.getUnknownTopicsList());
    return assigned;
  }

  /** Joins send this regex instead of topics from now on (null: subscribed by topics). */
  synchronized void usePattern(String regex) {
    String next = regex == null ? "" : regex;
    if (!next.equals(topicPattern)) {
      topicPattern = next;
      matchedTopics = Set.of(); // until the next join answers what the new pattern matched
    }
  }

  private void checkEpoch(int epoch) {
    if (epoch != leaveEpoch) {
      throw new BrookException("LEFT", "the consumer unsubscribed or closed while this JoinGroup was under way");
    }
  }

  /** The topics the broker matched with the pattern at the last join. */
  synchronized Set<String> matchedTopics() {
    return matchedTopics;
  }

  /**
   * A cooperative rejoin starts (its token names it): heartbeats pause meanwhile. It is the rejoin a
   * subscription change or a heartbeat asked for: one asked for from now on comes after it.
   */
  synchronized void joining(Object rejoin) {
    joining = rejoin;
    rejoinRequested = false;
    notifyAll();
  }

  /** That cooperative rejoin ended or was dropped (a newer one is not affected); a waiting poll wakes. */
  synchronized void joinEnded(Object rejoin) {
    if (joining == rejoin) {
      joining = null;
      notifyAll();
    }
  }

  /** The subscribed topics the broker did not know at the last join. */
  Set<String> unknownTopics() {
    return unknownTopics.current();
  }

  private void startHeartbeats() {
    if (heartbeater == null) {
      heartbeater = new Thread(this::heartbeatLoop, "brook-heartbeat-" + config.groupId());
      heartbeater.setDaemon(true);
      heartbeater.start();
    }
  }

  /** The membership a commit is made in, or null when the member holds no current assignment. */
  synchronized ConsumerGroupMetadata current() {
    return joined && !lost ? new ConsumerGroupMetadata(config.groupId(), memberId, generation) : null;
  }

  synchronized ConsumerGroupMetadata metadata() {
    ConsumerGroupMetadata m = current();
    return m != null ? m : new ConsumerGroupMetadata(config.groupId(), "", -1);
  }

  synchronized void pollStarted() {
    inPoll = true;
  }

  synchronized void pollEnded() {
    inPoll = false;
    lastPollNanos = System.nanoTime();
  }

  /** Waits up to {@code ms} for the heartbeat thread to report a rebalance or a loss. */
  synchronized void awaitChange(long ms) throws InterruptedException {
    // While a cooperative rejoin is under way a requested rejoin waits for it: its end wakes us.
    if (ms > 0 && joined && (!rejoinRequested || joining != null) && !lost && !closed) {
      wait(ms);
    }
  }

  /**
   * A call of this membership failed: when the broker says the member is unknown (removed, or the
   * broker restarted) or fenced, and the answer concerns the membership held now, it is lost.
   * Answers whether the failure was one of those.
   */
  boolean fencedOrRemoved(BrookException e, ConsumerGroupMetadata of) {
    if (e instanceof MemberReplacedException r) {
      synchronized (this) {
        if (isCurrent(of.memberId(), of.generation())) {
          statics.replaced(r);
          lost = true;
          notifyAll();
        }
      }
      return false; // not a membership to join again: thrown as it is
    }
    boolean removed = e instanceof UnknownMemberException || e instanceof UnknownGroupException;
    if (!removed && !(e instanceof IllegalGenerationException)) {
      return false;
    }
    synchronized (this) {
      if (joining != null) {
        return true; // the rejoin under way tells whether the member is still in the group
      }
      if (isCurrent(of.memberId(), of.generation())) {
        lost = true;
        if (removed) {
          memberId = "";
        }
        notifyAll();
      }
    }
    return true;
  }

  private boolean isCurrent(String member, int gen) {
    return joined && !lost && !closed && member.equals(memberId) && gen == generation;
  }

  /** Whether a newer consumer with this group.instance.id took the member's place: it stays out for good. */
  synchronized boolean replaced() {
    return statics.isReplaced();
  }

  /** @throws MemberReplacedException when a newer consumer with this group.instance.id took the member's place */
  synchronized void throwIfReplaced() {
    statics.throwIfReplaced();
  }

  /** Leaves the group (when it is a dynamic member) and stops the heartbeat thread. */
  void close() {
    String leaving = null;
    Thread t;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      leaveEpoch++;
      if (!memberId.isEmpty() && !lost) {
        leaving = memberId;
      }
      joined = false;
      t = heartbeater;
      notifyAll();
    }
    if (leaving != null) {
      leave(leaving);
    }
    if (t != null) {
      t.interrupt();
      try {
        t.join(TimeUnit.SECONDS.toMillis(10));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * For unsubscribe: leaves the group but stays usable for a later subscribe. A join under way is
   * over for this membership (its answer is dropped), and a fenced static member stays fenced.
   */
  void leaveGroup() {
    String leaving;
    synchronized (this) {
      leaving = joined && !lost && !memberId.isEmpty() ? memberId : null;
      leaveEpoch++;
      memberId = "";
      joined = false;
      lost = statics.isReplaced(); // fenced for good: a later subscribe must not take the instance back
      rejoinRequested = false;
      notifyAll();
    }
    if (leaving != null) {
      leave(leaving);
    }
  }

  // --- the heartbeat thread

  private void heartbeatLoop() {
    while (true) {
      String member;
      int gen;
      long maxWaitMs;
      String leaveAs = null;
      synchronized (this) {
        try {
          while (true) {
            if (closed) {
              return;
            }
            if (!joined || lost || joining != null) {
              wait(); // join(), joinEnded() or close() wakes us
              continue;
            }
            long now = System.nanoTime();
            long pollDeadline = lastPollNanos + TimeUnit.MILLISECONDS.toNanos(config.maxPollIntervalMs());
            if (!inPoll && now - pollDeadline > 0) {
              // The application stopped polling: give the partitions to the others (Kafka's
              // max.poll.interval.ms). The next poll joins as a new member.
              leaveAs = memberId;
              memberId = "";
              lost = true;
              notifyAll();
              break;
            }
            long waitNanos = nextHeartbeatNanos - now;
            if (!inPoll) {
              waitNanos = Math.min(waitNanos, pollDeadline - now + 1_000_000);
            }
            if (waitNanos > 0) {
              TimeUnit.NANOSECONDS.timedWait(this, waitNanos);
              continue;
            }
            break;
          }
        } catch (InterruptedException e) {
          if (closed) {
            return;
          }
          continue;
        }
        member = memberId;
        gen = generation;
        long now = System.nanoTime();
        nextHeartbeatNanos = now + TimeUnit.MILLISECONDS.toNanos(heartbeatIntervalMs);
        // The broker holds the heartbeat until a rebalance starts or this long passed; the next one
        // then goes at once. Not past the poll deadline, which this thread must check in time.
        maxWaitMs = heartbeatIntervalMs;
        if (!inPoll) {
          long toDeadline = TimeUnit.NANOSECONDS.toMillis(lastPollNanos - now) + config.maxPollIntervalMs() + 1;
          maxWaitMs = Math.max(1, Math.min(maxWaitMs, toDeadline));
        }
      }
      if (leaveAs != null) {
        LOG.log(System.Logger.Level.WARNING, "{0} group {1}: poll was not called within max.poll.interval.ms ({2} ms);"
            + " the next poll joins again", statics.leaves() ? "left" : "stopped heartbeating in (a static member)",
            config.groupId(), config.maxPollIntervalMs());
        leave(leaveAs);
        continue;
      }
      heartbeat(member, gen, maxWaitMs);
    }
  }

  private void heartbeat(String member, int gen, long maxWaitMs) {
    try {
      HeartbeatResponse r = groups.withDeadlineAfter(maxWaitMs + Math.max(heartbeatIntervalMs, 5000),
          TimeUnit.MILLISECONDS).heartbeat(HeartbeatRequest.newBuilder().setGroup(config.groupId())
              .setMemberId(member).setGeneration(gen).setMaxWaitMs((int) maxWaitMs).build());
      if (r.getRejoin()) {
        synchronized (this) {
          if (isCurrent(member, gen) && joining == null) { // a rejoin under way answers this rebalance
            rejoinRequested = true;
            notifyAll();
          }
        }
      }
    } catch (RuntimeException e) {
      BrookException b = ErrorMapping.fromThrowable(e);
      if (!fencedOrRemoved(b, new ConsumerGroupMetadata(config.groupId(), member, gen))) {
        // Unreachable or restarting broker: try again at the next interval. A session that ran
        // out meanwhile shows up as UNKNOWN_MEMBER_ID then.
        LOG.log(System.Logger.Level.DEBUG, "heartbeat to group {0} failed: {1} ({2})", config.groupId(),
            b.getMessage(), b.reason());
      }
    }
  }

  private void leave(String member) {
    if (!statics.leaves()) {
      return; // a static member stays until its session times out: a restart takes its place without a rebalance
    }
    try {
      groups.withDeadlineAfter(Math.min(config.requestTimeoutMs(), 5000), TimeUnit.MILLISECONDS)
          .leaveGroup(LeaveGroupRequest.newBuilder().setGroup(config.groupId()).setMemberId(member).build());
    } catch (RuntimeException e) {
      // Already removed, or the broker is gone: the session timeout removes the member anyway.
      BrookException b = ErrorMapping.fromThrowable(e);
      LOG.log(System.Logger.Level.DEBUG, "LeaveGroup of {0} failed: {1} ({2})", config.groupId(), b.getMessage(),
          b.reason());
    }
  }
}
