package io.brook.broker.it;

import io.brook.protocol.v1.AckServiceGrpc;
import io.brook.protocol.v1.FlowControl;
import io.brook.protocol.v1.LeasedRecord;
import io.brook.protocol.v1.LeasedRecords;
import io.brook.protocol.v1.Nack;
import io.brook.protocol.v1.OffsetRange;
import io.brook.protocol.v1.ReceiveRequest;
import io.brook.protocol.v1.ReceiveResponse;
import io.brook.protocol.v1.SettleFailure;
import io.grpc.Channel;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** One ack-mode member over a Receive stream, for tests: what arrives is queued, acks are sent. */
final class AckStream implements AutoCloseable {
  /** A received record with where it came from. */
  record Got(String topic, int partition, LeasedRecord leased) {
    long offset() {
      return leased.getRecord().getOffset();
    }

    int attempt() {
      return leased.getDeliveryAttempt();
    }

    String value() {
      return leased.getRecord().getValue().toStringUtf8();
    }
  }

  final BlockingQueue<Got> records = new LinkedBlockingQueue<>();
  final BlockingQueue<SettleFailure> failures = new LinkedBlockingQueue<>();
  final Recorder<ReceiveResponse> responses = new Recorder<>();
  private final StreamObserver<ReceiveRequest> requests;
  volatile String memberId;

  AckStream(Channel channel, String group, String clientId, long maxOutstanding, String... topics) {
    this(channel, ReceiveRequest.newBuilder().setGroup(group).addAllTopics(List.of(topics)).setClientId(clientId)
        .setFlowControl(FlowControl.newBuilder().setMaxOutstandingRecords(maxOutstanding)).build());
  }

  /** A stream whose first message is {@code first} as it is. */
  AckStream(Channel channel, ReceiveRequest first) {
    requests = AckServiceGrpc.newStub(channel).receive(new StreamObserver<>() {
      @Override
      public void onNext(ReceiveResponse r) {
        if (!r.getMemberId().isEmpty()) {
          memberId = r.getMemberId();
        }
        for (LeasedRecords b : r.getBatchesList()) {
          for (LeasedRecord l : b.getRecordsList()) {
            records.add(new Got(b.getTopic(), b.getPartition(), l));
          }
        }
        failures.addAll(r.getFailuresList());
        responses.onNext(r);
      }

      @Override
      public void onError(Throwable t) {
        responses.onError(t);
      }

      @Override
      public void onCompleted() {
        responses.onCompleted();
      }
    });
    synchronized (this) {
      requests.onNext(first);
    }
  }

  /** The next record, or an AssertionError after the timeout. */
  Got next(long timeoutMs) throws InterruptedException {
    Got g = records.poll(timeoutMs, TimeUnit.MILLISECONDS);
    if (g == null) {
      throw new AssertionError("no record within " + timeoutMs + " ms");
    }
    return g;
  }

  /** Takes records until {@code count} arrived (or fails after the timeout). */
  List<Got> take(int count, long timeoutMs) throws InterruptedException {
    List<Got> out = new ArrayList<>();
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (out.size() < count) {
      Got g = records.poll(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
      if (g == null) {
        throw new AssertionError("got " + out.size() + " of " + count + " records within " + timeoutMs + " ms");
      }
      out.add(g);
    }
    return out;
  }

  static OffsetRange range(String topic, int partition, long first, long last) {
    return OffsetRange.newBuilder().setTopic(topic).setPartition(partition).setFirstOffset(first)
        .setLastOffset(last).build();
  }

  synchronized void ack(OffsetRange... ranges) {
    requests.onNext(ReceiveRequest.newBuilder().addAllAcks(List.of(ranges)).build());
  }

  synchronized void ack(List<Got> got) {
    ReceiveRequest.Builder b = ReceiveRequest.newBuilder();
    got.forEach(g -> b.addAcks(range(g.topic(), g.partition(), g.offset(), g.offset())));
    requests.onNext(b.build());
  }

  synchronized void nack(Got g, int delayMs, boolean reject) {
    requests.onNext(ReceiveRequest.newBuilder().addNacks(Nack.newBuilder()
        .setRange(range(g.topic(), g.partition(), g.offset(), g.offset())).setDelayMs(delayMs).setReject(reject))
        .build());
  }

  synchronized void extend(Got g, int leaseMs) {
    requests.onNext(ReceiveRequest.newBuilder().addExtensions(io.brook.protocol.v1.LeaseExtension.newBuilder()
        .setRange(range(g.topic(), g.partition(), g.offset(), g.offset())).setLeaseMs(leaseMs)).build());
  }

  /** The member id the broker answered first, waiting for it. */
  String awaitMemberId(long seconds) throws InterruptedException {
    long deadline = System.currentTimeMillis() + seconds * 1000;
    while (memberId == null && System.currentTimeMillis() < deadline) {
      Thread.sleep(10);
    }
    if (memberId == null) {
      throw new AssertionError("no member id within " + seconds + " s");
    }
    return memberId;
  }

  synchronized void flowControl(long maxOutstanding) {
    requests.onNext(ReceiveRequest.newBuilder()
        .setFlowControl(FlowControl.newBuilder().setMaxOutstandingRecords(maxOutstanding)).build());
  }

  /** How the stream ended (a Throwable, or "completed"), skipping messages; null if it did not. */
  Object awaitEnd(long seconds) throws InterruptedException {
    long deadline = System.currentTimeMillis() + seconds * 1000;
    while (System.currentTimeMillis() < deadline) {
      Object e = responses.next(1);
      if (e instanceof Throwable || "completed".equals(e)) {
        return e;
      }
    }
    return null;
  }

  SettleFailure nextFailure(long timeoutMs) throws InterruptedException {
    SettleFailure f = failures.poll(timeoutMs, TimeUnit.MILLISECONDS);
    if (f == null) {
      throw new AssertionError("no settle failure within " + timeoutMs + " ms");
    }
    return f;
  }

  @Override
  public synchronized void close() {
    try {
      requests.onCompleted();
    } catch (RuntimeException ignored) {
      // already ended
    }
  }
}
