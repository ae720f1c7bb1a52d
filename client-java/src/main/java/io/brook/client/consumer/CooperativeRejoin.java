package io.brook.client.consumer;

import io.brook.client.TopicPartition;
import io.brook.client.errors.BrookException;
import io.brook.client.internal.ErrorMapping;
import io.grpc.Context;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A cooperative member's rejoin (D64): its JoinGroup, which the broker answers when the rebalance
 * completes, runs on a thread of its own while the polling thread keeps fetching the partitions the
 * member owns; the polling thread takes the answer when it is there, with the subscription the join
 * was sent with (Kafka's joinedSubscription). Used by the polling thread only.
 */
final class CooperativeRejoin {
  private final Membership membership;
  private final String groupId;
  private ExecutorService joiner;
  private CompletableFuture<List<TopicPartition>> pending;
  private Subscription joined;
  private Object joinToken;
  private Context.CancellableContext joinCall;

  CooperativeRejoin(Membership membership, String groupId) {
    this.membership = membership;
    this.groupId = groupId;
  }

  /** The subscription a join was sent with: topics, or a pattern ("" for none). */
  record Subscription(List<String> topics, String pattern) {}

  /**
   * Sends the JoinGroup for this subscription, reporting the partitions the member owns; returns at
   * once. The subscription is fixed here: one changed meanwhile is joined with after the answer.
   */
  void start(Subscription subscription, Collection<TopicPartition> owned) {
    if (joiner == null) {
      joiner = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "brook-rejoin-" + groupId);
        t.setDaemon(true);
        return t;
      });
    }
    List<TopicPartition> joinOwned = List.copyOf(owned);
    int epoch = membership.leaveEpoch();
    Object token = new Object();
    Context.CancellableContext call = Context.current().withCancellation();
    membership.joining(token);
    joined = subscription;
    joinToken = token;
    joinCall = call;
    pending = CompletableFuture.supplyAsync(() -> {
      Context previous = call.attach(); // drop() cancels the JoinGroup through it
      try {
        return membership.join(subscription.topics(), subscription.pattern(), joinOwned, epoch);
      } finally {
        call.detach(previous);
        membership.joinEnded(token);
      }
    }, joiner);
  }

  boolean underWay() {
    return pending != null;
  }

  /** The subscription of the join {@link #answer()} answered last. */
  Subscription joined() {
    return joined;
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

  /**
   * Unsubscribe or close: the join under way, if any, is over. Its JoinGroup is cancelled and its
   * answer, should it come anyway, is not recorded (Membership's leave epoch) nor applied.
   */
  void drop() {
    if (pending != null) {
      joinCall.cancel(null);
      membership.joinEnded(joinToken);
      pending = null;
    }
  }

  /** Stops the joiner thread (close: the member has left, which ends its pending JoinGroup). */
  void close() {
    drop();
    if (joiner != null) {
      joiner.shutdownNow();
    }
  }
}
