package io.brook.client.consumer;

import io.brook.client.TopicPartition;
import io.brook.client.errors.BrookException;
import io.brook.client.internal.ErrorMapping;
import io.brook.protocol.v1.TopicPartitions;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A cooperative member's rejoin (D64): its JoinGroup, which the broker answers when the rebalance
 * completes, runs on a thread of its own while the polling thread keeps fetching the partitions the
 * member owns; the polling thread takes the answer when it is there. Used by the polling thread only.
 */
final class CooperativeRejoin {
  private final Membership membership;
  private final String groupId;
  private ExecutorService joiner;
  private CompletableFuture<List<TopicPartition>> pending;

  CooperativeRejoin(Membership membership, String groupId) {
    this.membership = membership;
    this.groupId = groupId;
  }

  /** Sends the JoinGroup, reporting the partitions the member owns; returns at once. */
  void start(Collection<String> topics, Collection<TopicPartition> owned) {
    if (joiner == null) {
      joiner = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "brook-rejoin-" + groupId);
        t.setDaemon(true);
        return t;
      });
    }
    List<String> joinTopics = List.copyOf(topics);
    List<TopicPartition> joinOwned = List.copyOf(owned);
    membership.joining(true);
    pending = CompletableFuture.supplyAsync(() -> {
      try {
        return membership.join(joinTopics, joinOwned);
      } finally {
        membership.joining(false);
      }
    }, joiner);
  }

  boolean underWay() {
    return pending != null;
  }

  /**
   * The member's new partitions once the broker answered, else null (still under way).
   *
   * @throws BrookException the join failed; it is over
   */
  List<TopicPartition> answer() {
    if (pending == null || !pending.isDone()) {
      return null;
    }
    CompletableFuture<List<TopicPartition>> done = pending;
    pending = null;
    try {
      return done.get();
    } catch (ExecutionException e) {
      throw ErrorMapping.fromThrowable(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BrookException("INTERRUPTED", "interrupted while taking the rejoin's answer", e);
    }
  }

  /** Stops the joiner thread (close: the member has left, which ends its pending JoinGroup). */
  void close() {
    pending = null;
    if (joiner != null) {
      joiner.shutdownNow();
    }
  }

  /** Partitions as JoinGroupRequest.owned carries them. */
  static List<TopicPartitions> byTopic(Collection<TopicPartition> partitions) {
    Map<String, List<Integer>> byTopic = new TreeMap<>();
    partitions.forEach(tp -> byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition()));
    List<TopicPartitions> out = new ArrayList<>();
    byTopic.forEach((t, ps) -> out.add(TopicPartitions.newBuilder().setTopic(t).addAllPartitions(ps).build()));
    return out;
  }
}
