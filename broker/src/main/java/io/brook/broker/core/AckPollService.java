package io.brook.broker.core;

import io.brook.broker.delivery.Delivery;
import io.brook.broker.groups.AckGroup;
import io.brook.broker.groups.GroupManager;
import io.brook.broker.groups.Settlement;
import io.brook.broker.groups.poll.PollStart;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Poll-style consumers of ack-mode groups (HTTP, D70): a receive joins the group's pool beside gRPC
 * and Kafka share members, and waits — holding no thread — until the group's dispatch leases it
 * records or its wait runs out; the consumer then settles by naming them. Leases outlive the request
 * (until settled, or the group's ack timeout); a consumer that stops asking leaves after the group's
 * share.session.timeout.ms and hands back what it holds.
 */
public final class AckPollService {
  public static final int DEFAULT_MAX_RECORDS = 100;
  public static final int MAX_RECORDS = 10_000;
  public static final int DEFAULT_MAX_BYTES = 1 << 20;
  /** A receive that asks not to wait still lets the dispatch it started run before it answers. */
  private static final long MIN_WAIT_MS = 10;

  private final GroupManager groups;
  private final Executor readExecutor;
  private final ScheduledExecutorService timer;
  private final long maxWaitMs;
  private final int maxBytes;

  /**
   * @param readExecutor where answers continue (off the group's monitor, which completes the wait)
   * @param maxWaitMs the longest a receive waits (fetch.max.wait.ms), whatever it asks
   * @param maxBytes the most payload bytes one answer may ask for
   */
  public AckPollService(GroupManager groups, Executor readExecutor, ScheduledExecutorService timer, long maxWaitMs,
      int maxBytes) {
    this.groups = groups;
    this.readExecutor = readExecutor;
    this.timer = timer;
    this.maxWaitMs = maxWaitMs;
    this.maxBytes = maxBytes;
  }

  /** What a receive got: records leased to its consumer until their lease deadlines. */
  public record Received(String group, String consumer, List<Delivery> records, long ackTimeoutMs) {}

  /**
   * A receive under way. {@link #abandon} when its answer cannot reach the consumer (the connection
   * closed before it was written): the wait ends, and records already handed to it go back to the
   * group at once, not counted as attempts, instead of staying locked until their leases run out.
   */
  public static final class Pending {
    private final CompletableFuture<Received> result;
    private final Runnable abandon;
    private final AtomicBoolean abandoned = new AtomicBoolean();

    Pending(CompletableFuture<Received> result, Runnable abandon) {
      this.result = result;
      this.abandon = abandon;
    }

    public CompletableFuture<Received> result() {
      return result;
    }

    /** Idempotent; call it only while the answer was not written. */
    public void abandon() {
      if (abandoned.compareAndSet(false, true)) {
        abandon.run();
      }
    }
  }

  /** Starts a receive; throws (synchronously) for a bad request, an unknown topic or a group in offset mode. */
  public Pending receive(PollReceive r) {
    if (r.consumer() == null || r.consumer().isEmpty()) {
      throw MemberChecks.invalid("a receive names its consumer (1 to 255 characters)");
    }
    MemberChecks.check("a receive", r.group(), r.topics(), r.consumer());
    if (r.maxRecords() < 0 || r.maxRecords() > MAX_RECORDS) {
      throw MemberChecks.invalid("maxRecords must be between 1 and " + MAX_RECORDS + " (0: " + DEFAULT_MAX_RECORDS
          + ")");
    }
    if (r.maxBytes() < 0 || r.maxBytes() > maxBytes) {
      throw MemberChecks.invalid("maxBytes must be between 1 and " + maxBytes + " (0: " + Math.min(maxBytes,
          DEFAULT_MAX_BYTES) + ")");
    }
    if (r.waitMs() < 0) {
      throw MemberChecks.invalid("waitMs must be >= 0");
    }
    int records = r.maxRecords() == 0 ? DEFAULT_MAX_RECORDS : r.maxRecords();
    int bytes = r.maxBytes() == 0 ? Math.min(maxBytes, DEFAULT_MAX_BYTES) : r.maxBytes();
    groups.checkTopicsExist(r.topics()); // before the group is created on demand
    AckGroup g = groups.ackGroup(r.group(), true);
    PollStart st = g.pollReceive(r.consumer(), r.topics(), records, bytes, r.address(), r.principal());
    long waitMs = Math.max(MIN_WAIT_MS, Math.min(r.waitMs(), maxWaitMs));
    ScheduledFuture<?> timeout = timer.schedule(() -> g.pollEnded(st, false), waitMs, TimeUnit.MILLISECONDS);
    CompletableFuture<Received> result = st.records().thenApplyAsync(ds -> {
      timeout.cancel(false);
      return new Received(r.group(), st.member(), ds, st.lockMs());
    }, readExecutor);
    return new Pending(result, () -> {
      timeout.cancel(false);
      g.pollEnded(st, true);
    });
  }

  /** Acks, nacks (with a delay) and rejects of a consumer; answers what did not apply. */
  public List<Settlement.Failure> settle(String group, String consumer, Settlement settlement, String principal) {
    if (consumer == null || consumer.isEmpty()) {
      throw MemberChecks.invalid("a settle names its consumer");
    }
    return existing(group).pollSettle(consumer, principal, settlement);
  }

  /** The consumer leaves at once: what it holds goes back to the group. */
  public void leave(String group, String consumer, String principal) {
    existing(group).pollLeave(consumer, principal);
  }

  private AckGroup existing(String group) {
    return groups.ackGroup(group, false); // UNKNOWN_GROUP, or INCONSISTENT_GROUP_MODE for an offset group
  }
}
