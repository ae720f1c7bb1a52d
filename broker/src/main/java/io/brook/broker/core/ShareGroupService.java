package io.brook.broker.core;

import io.brook.broker.delivery.Delivery;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.groups.AckGroup;
import io.brook.broker.groups.GroupManager;
import io.brook.broker.groups.share.ShareFetchStart;
import io.brook.broker.groups.share.ShareHeartbeatAnswer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's share groups (KIP-932) on Brook's ack groups: a share member joins an ack group beside its
 * gRPC members and takes records from the same pool. Heartbeats and acknowledgements are answered at
 * once; a fetch waits until the group's dispatch hands its member records, or its wait runs out. The
 * answer carries the stored batches that hold the acquired records, read as they are (never
 * re-encoded), beside the acquired offsets with their delivery counts.
 */
public final class ShareGroupService {
  private static final Logger log = LoggerFactory.getLogger(ShareGroupService.class);
  /** A fetch that asks not to wait still lets the dispatch it started run before it answers. */
  private static final long MIN_WAIT_MS = 10;
  /** One read of an answer's batches: a partition's acquired records are read in steps of this. */
  private static final int READ_STEP_BYTES = 1 << 20;
  private static final AnswerSize SIZE = AnswerSize.unframed(Integer.MAX_VALUE);

  private final GroupManager groups;
  private final FetchService fetch;
  private final Executor readExecutor;
  private final ScheduledExecutorService timer;
  private final long maxWaitMs;

  /**
   * @param readExecutor where answers are read (off the group's monitor, which completes the wait)
   * @param maxWaitMs the longest a fetch waits (fetch.max.wait.ms), whatever it asks
   */
  public ShareGroupService(GroupManager groups, FetchService fetch, Executor readExecutor,
      ScheduledExecutorService timer, long maxWaitMs) {
    this.groups = groups;
    this.fetch = fetch;
    this.readExecutor = readExecutor;
    this.timer = timer;
    this.maxWaitMs = maxWaitMs;
  }

  /** A share member's heartbeat; a join (epoch 0) creates the group when absent. */
  public ShareHeartbeatAnswer heartbeat(String group, String memberId, int epoch, List<String> topics, String clientId,
      String host, String principal) {
    AckGroup g = groups.kafkaShareGroup(group, epoch == 0);
    return g.shareHeartbeat(memberId, epoch, topics, clientId, host, principal);
  }

  /** A ShareFetch or ShareAcknowledge. */
  public CompletableFuture<ShareFetchResult> fetch(ShareFetchCall c) {
    return start(c).result();
  }

  /**
   * A fetch under way, and how to end its wait early: its connection closed, so records handed to it
   * now would reach nobody (ended before any came, it answers empty and holds nothing).
   */
  public record Pending(CompletableFuture<ShareFetchResult> result, Runnable cancel) {}

  /** A ShareFetch or ShareAcknowledge that may be cancelled while it waits. */
  public Pending start(ShareFetchCall c) {
    AckGroup g = groups.kafkaShareGroup(c.group(), false);
    ShareFetchStart st = g.shareFetch(c.memberId(), c.principal(), c.epoch(), c.added(), c.forgotten(), c.acks(),
        c.fetch(), c.maxRecords(), c.maxBytes());
    if (st.records() == null) {
      return new Pending(CompletableFuture.completedFuture(new ShareFetchResult(st.ackFailures(), List.of(),
          st.lockMs())), () -> { });
    }
    long waitMs = Math.max(MIN_WAIT_MS, Math.min(c.maxWaitMs(), maxWaitMs));
    Runnable endWait = () -> g.shareFetchTimedOut(st.sink(), st.records());
    ScheduledFuture<?> timeout = timer.schedule(endWait, waitMs, TimeUnit.MILLISECONDS);
    CompletableFuture<ShareFetchResult> result = st.records().thenApplyAsync(ds -> {
      timeout.cancel(false);
      return new ShareFetchResult(st.ackFailures(), acquired(ds), st.lockMs());
    }, readExecutor);
    return new Pending(result, endWait);
  }

  /** Deliveries by partition, in runs of consecutive offsets with one delivery count, with their batches. */
  private List<ShareFetchResult.Acquired> acquired(List<Delivery> deliveries) {
    List<Delivery> sorted = new ArrayList<>(deliveries);
    sorted.sort(Comparator.comparing(Delivery::topic).thenComparingInt(Delivery::partition)
        .thenComparingLong(d -> d.record().offset()));
    List<ShareFetchResult.Acquired> out = new ArrayList<>();
    int i = 0;
    while (i < sorted.size()) {
      Delivery first = sorted.get(i);
      int j = i;
      while (j < sorted.size() && sorted.get(j).topic().equals(first.topic())
          && sorted.get(j).partition() == first.partition()) {
        j++;
      }
      out.add(partition(first.topic(), first.partition(), sorted.subList(i, j)));
      i = j;
    }
    return out;
  }

  private ShareFetchResult.Acquired partition(String topic, int partition, List<Delivery> ds) {
    List<ShareFetchResult.Run> runs = new ArrayList<>();
    List<byte[]> batches = new ArrayList<>();
    long covered = -1; // the batches read so far hold every offset below this
    int k = 0;
    while (k < ds.size()) {
      long from = ds.get(k).record().offset();
      int attempt = ds.get(k).attempt();
      int e = k + 1;
      while (e < ds.size() && ds.get(e).record().offset() == ds.get(e - 1).record().offset() + 1
          && ds.get(e).attempt() == attempt) {
        e++;
      }
      long to = ds.get(e - 1).record().offset();
      long read = readBatches(topic, partition, Math.max(from, covered), to, covered, batches);
      if (read >= 0) {
        runs.add(new ShareFetchResult.Run(from, to, attempt));
        covered = read;
      }
      k = e;
    }
    return new ShareFetchResult.Acquired(topic, partition, batches, runs);
  }

  /**
   * Adds the stored batches holding [from, to] not read yet; returns the offset the batches now cover
   * to, or -1 when they cannot be read: the run is then left out of the answer, and its records, still
   * locked to the member, come again when the lock runs out (never settled unseen). Only records that
   * retention deleted meanwhile are answered without batches: the client acknowledges them as gaps.
   */
  private long readBatches(String topic, int partition, long from, long to, long covered, List<byte[]> batches) {
    long at = from;
    while (at <= to) {
      FetchQuery q = new FetchQuery(List.of(new FetchPosition(topic, partition, at, READ_STEP_BYTES)),
          Integer.MAX_VALUE, READ_STEP_BYTES, BatchForm.KAFKA, 0);
      PartitionRead r = fetch.read(q, SIZE).get(0);
      if (r.error() == BrokerError.OFFSET_OUT_OF_RANGE && to < r.logStartOffset()) {
        return Math.max(covered, to + 1); // deleted by retention: gaps
      }
      if (r.error() != null || r.batches().isEmpty() || r.nextOffset() <= at) {
        log.warn("Share fetch: cannot read {}-{} at {}: {}; those records come again when their locks run out",
            topic, partition, at, r.error() == null ? "nothing there" : r.errorMessage());
        return -1;
      }
      batches.addAll(r.batches());
      at = r.nextOffset();
    }
    return at;
  }
}
