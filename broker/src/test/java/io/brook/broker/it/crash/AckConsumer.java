package io.brook.broker.it.crash;

import io.brook.protocol.v1.AckServiceGrpc;
import io.brook.protocol.v1.FlowControl;
import io.brook.protocol.v1.LeasedRecord;
import io.brook.protocol.v1.LeasedRecords;
import io.brook.protocol.v1.Nack;
import io.brook.protocol.v1.OffsetRange;
import io.brook.protocol.v1.ReceiveRequest;
import io.brook.protocol.v1.ReceiveResponse;
import io.brook.protocol.v1.SettleFailure;
import io.brook.protocol.v1.SettleRequest;
import io.brook.protocol.v1.SettleResponse;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The one member of an ack-mode group: receives over a Receive stream, acks with Settle (an answer
 * says the acks are journaled), and nacks a few first deliveries. What it checks as records arrive:
 * a record whose ack was answered never comes again, and each delivery of a record carries a higher
 * attempt count than the last one seen (attempts are journaled before delivery, so a restart never
 * lowers them). What the harness checks after each restart: the group's committed offset (the lowest
 * unsettled) is not below the first record whose ack was not answered.
 */
final class AckConsumer extends Worker {
  private final String group;
  private final String topic;
  private final int partitions;
  private final Ledger ledger;
  private final CrashStats stats;
  private final SplittableRandom random;
  private final BitSet[] acked; // ack answered
  private final BitSet[] received; // delivered at least once
  private final List<Map<Long, Integer>> attempts = new ArrayList<>(); // offset -> highest attempt, until acked

  AckConsumer(String group, String topic, int partitions, long seed, Ledger ledger, CrashStats stats,
      BrokerLink link, Violations violations) {
    super("ack-consumer", link, violations);
    this.group = group;
    this.topic = topic;
    this.partitions = partitions;
    this.ledger = ledger;
    this.stats = stats;
    this.random = new SplittableRandom(seed ^ 0x5eed);
    this.acked = new BitSet[partitions];
    this.received = new BitSet[partitions];
    for (int p = 0; p < partitions; p++) {
      acked[p] = new BitSet();
      received[p] = new BitSet();
      attempts.add(new HashMap<>());
    }
  }

  /** A record as it arrived. */
  private record Got(int partition, LeasedRecord leased) {}

  @Override
  void work() throws InterruptedException {
    while (true) {
      ManagedChannel ch = link.channel();
      if (ch == null) {
        return;
      }
      try {
        receiveRound(ch);
      } catch (StatusRuntimeException e) {
        failed(e);
      }
    }
  }

  /** One Receive stream, until it ends or the broker goes down (it runs until the link stops). */
  private void receiveRound(ManagedChannel ch) throws InterruptedException {
    BlockingQueue<Object> events = new LinkedBlockingQueue<>();
    StreamObserver<ReceiveRequest> out = AckServiceGrpc.newStub(ch).receive(new StreamObserver<>() {
      @Override
      public void onNext(ReceiveResponse r) {
        events.add(r);
      }

      @Override
      public void onError(Throwable t) {
        events.add(t);
      }

      @Override
      public void onCompleted() {
        events.add("completed");
      }
    });
    out.onNext(ReceiveRequest.newBuilder().setGroup(group).addTopics(topic).setClientId("")
        .setFlowControl(FlowControl.newBuilder().setMaxOutstandingRecords(300)).build());
    String memberId = null;
    List<Got> toSettle = new ArrayList<>();
    long lastSettle = System.currentTimeMillis();
    try {
      while (true) {
        Object e = events.poll(10, TimeUnit.MILLISECONDS);
        if (e instanceof ReceiveResponse r) {
          if (!r.getMemberId().isEmpty()) {
            memberId = r.getMemberId();
          }
          for (LeasedRecords b : r.getBatchesList()) {
            for (LeasedRecord l : b.getRecordsList()) {
              if (delivered(b.getPartition(), l.getRecord().getOffset(), l.getDeliveryAttempt(),
                  l.getRecord().getKey().toStringUtf8())) {
                toSettle.add(new Got(b.getPartition(), l));
              }
            }
          }
          for (SettleFailure f : r.getFailuresList()) {
            violations.add(name + ": a stream settlement failed: " + f);
          }
        } else if (e != null) { // the stream ended
          if (e instanceof Throwable t) {
            failed(Status.fromThrowable(t).asRuntimeException());
          }
          return;
        }
        if (!link.isUp()) {
          return; // a kill is coming: what was received and not settled comes again after the restart
        }
        if (memberId != null && !toSettle.isEmpty()
            && (toSettle.size() >= 100 || System.currentTimeMillis() - lastSettle >= 20)) {
          settle(ch, memberId, toSettle);
          toSettle.clear();
          lastSettle = System.currentTimeMillis();
          succeeded();
        }
      }
    } finally {
      out.onError(Status.CANCELLED.withDescription("round over").asRuntimeException());
    }
  }

  /** Acks what was received (a few first deliveries are nacked instead) in one Settle call. */
  private void settle(ManagedChannel ch, String memberId, List<Got> got) {
    SettleRequest.Builder req = SettleRequest.newBuilder().setGroup(group).setMemberId(memberId);
    List<Got> acking = new ArrayList<>();
    for (Got g : got) {
      long offset = g.leased().getRecord().getOffset();
      int attempt = g.leased().getDeliveryAttempt();
      OffsetRange range = OffsetRange.newBuilder().setTopic(topic).setPartition(g.partition()).setFirstOffset(offset)
          .build();
      if (attempt == 1 && random.nextInt(20) == 0) {
        req.addNacks(Nack.newBuilder().setRange(range));
        stats.nacksSent.incrementAndGet();
      } else {
        req.addAcks(range);
        acking.add(g);
      }
    }
    SettleResponse r = AckServiceGrpc.newBlockingStub(ch).withDeadlineAfter(20, TimeUnit.SECONDS)
        .settle(req.build());
    List<long[]> failed = new ArrayList<>();
    for (SettleFailure f : r.getFailuresList()) {
      OffsetRange fr = f.getRange();
      failed.add(new long[] {fr.getPartition(), fr.getFirstOffset(),
          fr.hasLastOffset() ? fr.getLastOffset() : fr.getFirstOffset()});
      if (!f.getErrorCode().name().endsWith("LEASE_EXPIRED")) {
        violations.add(name + ": settle failed: " + f.getErrorCode() + " " + f.getErrorMessage() + " " + fr);
      }
    }
    synchronized (this) {
      for (Got g : acking) {
        long offset = g.leased().getRecord().getOffset();
        if (failed.stream().noneMatch(f -> f[0] == g.partition() && f[1] <= offset && offset <= f[2])) {
          acked[g.partition()].set((int) offset);
          attempts.get(g.partition()).remove(offset);
          stats.acksAnswered.incrementAndGet();
        }
      }
    }
  }

  /** Records a delivery; false (and a violation) when it must not have happened. */
  private synchronized boolean delivered(int partition, long offset, int attempt, String key) {
    stats.deliveries.incrementAndGet();
    boolean ok = true;
    if (acked[partition].get((int) offset)) {
      violations.add(name + ": " + partition + "/" + offset + " (" + key + ") delivered again (attempt " + attempt
          + ") after its ack was answered");
      ok = false;
    }
    Integer before = attempts.get(partition).get(offset);
    if (before != null) {
      stats.redeliveries.incrementAndGet();
      if (attempt <= before) {
        violations.add(name + ": " + partition + "/" + offset + " delivered with attempt " + attempt
            + " after attempt " + before);
        ok = false;
      }
    }
    if (!ledger.known(key)) {
      violations.add(name + ": " + partition + "/" + offset + " holds " + key + ", which no producer sent");
    }
    attempts.get(partition).merge(offset, attempt, Math::max);
    received[partition].set((int) offset);
    return ok;
  }

  /** The first offset of the partition whose ack was not answered: everything below is settled for good. */
  synchronized long firstNotAcked(int partition) {
    return acked[partition].nextClearBit(0);
  }

  /** Offsets below {@code end} never delivered to this member. */
  synchronized long neverReceived(int partition, long end) {
    return end - received[partition].get(0, (int) end).cardinality();
  }
}
