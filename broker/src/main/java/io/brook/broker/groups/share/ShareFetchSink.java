package io.brook.broker.groups.share;

import io.brook.broker.delivery.AckMember;
import io.brook.broker.delivery.Delivery;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.AckGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Where a Kafka share member's deliveries go: the ShareFetch it has waiting, if any (an HTTP consumer's
 * receive waits here too, D70). A member can
 * take records only while one waits (Kafka's consumers pull), as many bytes as it asked for; the
 * first dispatch that hands it records answers it, so one fetch gets one dispatch's records, which
 * the dispatch already cut to the fetch's limits. Deliveries that find no fetch (the fetch ended
 * meanwhile) wait for the next one, still leased. Called under the group's monitor.
 */
public final class ShareFetchSink implements AckMember.Sink, AckGroup.Closeable {
  private CompletableFuture<List<Delivery>> waiting;
  private long maxBytes;
  private final List<Delivery> leftOver = new ArrayList<>();

  /**
   * A fetch starts waiting for records; one still waiting is answered empty first (a member has one
   * fetch at a time on its session). Answered at once with deliveries left over from an ended one.
   */
  public CompletableFuture<List<Delivery>> await(long bytes) {
    end();
    CompletableFuture<List<Delivery>> f = new CompletableFuture<>();
    if (!leftOver.isEmpty()) {
      f.complete(List.copyOf(leftOver));
      leftOver.clear();
      return f;
    }
    waiting = f;
    maxBytes = Math.max(1, bytes);
    return f;
  }

  /** Ends the waiting fetch with what it has (nothing): its wait ran out, or its member left. */
  public void end() {
    if (waiting != null) {
      waiting.complete(List.of());
      waiting = null;
    }
  }

  /** The fetch {@code f}'s wait ran out: answered empty if nothing answered it yet. */
  public void timedOut(CompletableFuture<?> f) {
    if (waiting == f) {
      end();
    }
  }

  /** Deliveries nobody fetched (the member is going): their leases are the group's to hand back. */
  public List<Delivery> drainLeftOver() {
    List<Delivery> out = List.copyOf(leftOver);
    leftOver.clear();
    return out;
  }

  @Override
  public long sendableBytes() {
    return waiting == null ? 0 : maxBytes;
  }

  @Override
  public void deliver(List<Delivery> deliveries) {
    if (waiting == null) {
      leftOver.addAll(deliveries);
      return;
    }
    CompletableFuture<List<Delivery>> f = waiting;
    waiting = null;
    f.complete(deliveries);
  }

  @Override
  public void unused() {
    // nothing reserved: a share fetch's answer is built after the dispatch, off the group's monitor
  }

  @Override
  public void replaced(BrokerException why) {
    end();
  }

  @Override
  public void shutDown(String why) {
    end();
  }
}
