package io.brook.broker.api;

import io.brook.broker.delivery.AckMember;
import io.brook.broker.delivery.Delivery;
import io.brook.broker.delivery.SentDelivery;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.AckGroup;
import io.brook.broker.groups.GroupManager;
import io.brook.broker.groups.Settlement;
import io.brook.broker.outbound.OutboundMemory;
import io.brook.broker.security.Caller;
import io.brook.protocol.v1.FlowControl;
import io.brook.protocol.v1.LeasedRecord;
import io.brook.protocol.v1.LeasedRecords;
import io.brook.protocol.v1.ReceiveRequest;
import io.brook.protocol.v1.ReceiveResponse;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One member's Receive stream. The first message joins (creating the ack group when absent); the
 * broker answers with the member id, then leased records whenever the group's dispatch finds room
 * under the member's flow control. Everything sent goes out under the group's monitor, so sends
 * never interleave.
 *
 * <p>The stream takes records only when it can send them: its transport wrote everything sent before
 * ({@code isReady} with a one-byte threshold) and memory for a message is reserved on its
 * connection's {@link OutboundMemory.Account}. So a member that stops reading holds at most one
 * dispatch's records here, and a message never exceeds {@link AnswerCap} unless it carries a single
 * record. Deliveries the stream did not outlive ({@link UnconfirmedDeliveries}) do not count as
 * attempts when it fails, or ends for a member without a client id.
 */
final class ReceiveSession implements StreamObserver<ReceiveRequest>, AckMember.Sink, AckGroup.Closeable {
  static final long DEFAULT_MAX_RECORDS = 1000;
  static final long DEFAULT_MAX_BYTES = 100L << 20;

  private final GroupManager groups;
  private final ServerCallStreamObserver<ReceiveResponse> out;
  private final String address;
  private final OutboundMemory.Account account;
  private volatile AckGroup group;
  private volatile AckMember member;
  private volatile boolean ended;
  private final Draining draining;
  /** Also before the first request joined a group, which the groups' own close would miss. */
  private final Runnable drain = () -> shutDown("the broker is shutting down: reconnect and resume");

  // Guarded by the group's monitor once joined.
  /** Memory reserved for the next message (granted by the account, maybe on another thread). */
  private final AtomicLong granted = new AtomicLong();
  private OutboundMemory.Waiter waiter;
  /** A request was not asked for because the transport was busy: asked for once it is ready. */
  private boolean owed;
  /** Memory of messages sent and maybe not yet written. */
  private long inTransport;
  /** What went out that the member may not have got: taken back, not counted, if the stream fails. */
  private final UnconfirmedDeliveries unconfirmed = new UnconfirmedDeliveries();

  ReceiveSession(GroupManager groups, ServerCallStreamObserver<ReceiveResponse> out, String address,
      Draining draining, OutboundMemory.Account account) {
    this.groups = groups;
    this.out = out;
    this.address = address;
    this.draining = draining;
    this.account = account;
    out.setOnReadyThreshold(1); // ready = everything sent is written
    out.setOnCancelHandler(() -> gone(true));
    out.setOnReadyHandler(this::onReady);
    // Requests are read one at a time, the next once the answers before are written: a client that
    // sends settles and reads nothing cannot make the broker queue answers to them.
    out.disableAutoRequest();
    out.request(1);
    draining.add(drain);
  }

  @Override
  public void onNext(ReceiveRequest request) {
    if (ended) {
      return;
    }
    try {
      if (member == null) {
        join(request); // then its settles, if any: a member taking over its leases may ack them at once
      } else if (request.hasFlowControl()) {
        long[] fc = flowControl(request.getFlowControl());
        group.flowControl(member, fc[0], fc[1]);
      }
      settle(request);
    } catch (RuntimeException e) {
      fail(Errors.toStatus(e));
      return;
    }
    askForMore();
  }

  /**
   * The acks, nacks and extensions of a message; what did not apply is answered on the stream, and
   * a numbered message ({@code settle_seq}) is answered in any case, so its client knows they applied.
   */
  private void settle(ReceiveRequest request) {
    long seq = request.getSettleSeq();
    if (request.getAcksCount() + request.getNacksCount() + request.getExtensionsCount() > 0 || seq > 0) {
      synchronized (group) {
        List<Settlement.Failure> failures = group.settle(member, new Settlement(AckGrpcService.ranges(request.getAcksList()),
            AckGrpcService.nacks(request.getNacksList()), AckGrpcService.extensions(request.getExtensionsList())));
        if ((!failures.isEmpty() || seq > 0) && !ended) {
          ReceiveResponse.Builder b = ReceiveResponse.newBuilder().setSettledSeq(Math.max(0, seq));
          failures.forEach(f -> b.addFailures(AckGrpcService.failure(f)));
          ReceiveResponse answer = b.build();
          int size = answer.getSerializedSize() + AnswerCap.FRAME_HEADER;
          account.force(size); // an answer owed to a request read: requests wait for the transport instead
          inTransport += size;
          out.onNext(answer);
        }
      }
    }
  }

  private synchronized void askForMore() {
    if (ended) {
      return;
    }
    if (out.isReady()) {
      out.request(1);
    } else {
      owed = true;
    }
  }

  private void join(ReceiveRequest first) {
    GroupGrpcService.checkMember("the first ReceiveRequest", first.getGroup(), first.getTopicsList(),
        first.getClientId());
    long[] fc = flowControl(first.getFlowControl());
    groups.checkTopicsExist(first.getTopicsList()); // before the group is created on demand
    AckGroup g = groups.ackGroup(first.getGroup(), true);
    synchronized (g) { // the member id goes out before any record can
      group = g;
      AckMember m = g.connect(first.getClientId(), first.getTopicsList(), this, fc[0], fc[1], address,
          Caller.principal());
      member = m;
      out.onNext(ReceiveResponse.newBuilder().setMemberId(m.id()).setConfirmsSettles(true).build());
    }
  }

  private static long[] flowControl(FlowControl fc) {
    if (fc.getMaxOutstandingRecords() < 0 || fc.getMaxOutstandingBytes() < 0) {
      throw Errors.invalid("flow control limits must be >= 0 (0: the default)");
    }
    long records = fc.getMaxOutstandingRecords() == 0 ? DEFAULT_MAX_RECORDS : fc.getMaxOutstandingRecords();
    long bytes = fc.getMaxOutstandingBytes() == 0 ? DEFAULT_MAX_BYTES : fc.getMaxOutstandingBytes();
    return new long[] {records, bytes};
  }

  /** The transport wrote what was queued: that memory is free and those deliveries arrived. */
  private void onReady() {
    AckGroup g = group;
    if (g == null) {
      return;
    }
    synchronized (g) {
      if (!ended && out.isReady()) {
        written();
      }
    }
    synchronized (this) {
      if (owed && !ended && out.isReady()) {
        owed = false;
        out.request(1);
      }
    }
    g.requestDispatch();
  }

  /** Everything sent so far is written (the transport is ready): its memory goes back. */
  private void written() {
    account.release(inTransport);
    inTransport = 0;
    unconfirmed.written(System.nanoTime());
  }

  @Override
  public long sendableBytes() {
    if (ended || !out.isReady()) {
      return 0;
    }
    written();
    if (granted.get() == 0 && waiter == null) {
      OutboundMemory.Waiter w = account.reserve(AnswerCap.BYTES, this::grantedLater);
      if (w == null) {
        granted.set(AnswerCap.BYTES);
      } else {
        waiter = w;
      }
    }
    long g = granted.get();
    if (g > 0) {
      waiter = null;
    }
    return g;
  }

  /** Memory came on another thread (no monitor may be taken there): the next dispatch uses it. */
  private void grantedLater() {
    granted.addAndGet(AnswerCap.BYTES);
    if (ended) {
      account.release(granted.getAndSet(0));
      return;
    }
    AckGroup g = group;
    if (g != null) {
      g.requestDispatch();
    }
  }

  @Override
  public void deliver(List<Delivery> deliveries) {
    if (ended) {
      return;
    }
    List<ReceiveResponse> messages = messages(deliveries);
    long size = 0;
    for (ReceiveResponse m : messages) {
      size += m.getSerializedSize() + AnswerCap.FRAME_HEADER;
    }
    // More than granted: the records' framing beyond their payload, or one record alone.
    account.resize(granted.getAndSet(0), size);
    inTransport += size;
    unconfirmed.sent(deliveries, System.nanoTime());
    try {
      for (ReceiveResponse m : messages) {
        out.onNext(m);
      }
    } catch (RuntimeException e) {
      gone(true); // cancelled under us: what the stream did not outlive goes back
    }
  }

  @Override
  public void unused() {
    account.release(granted.getAndSet(0));
  }

  /** The deliveries as messages of at most the cap each (one record alone may be larger). */
  private static List<ReceiveResponse> messages(List<Delivery> deliveries) {
    List<ReceiveResponse> out = new ArrayList<>(1);
    ReceiveResponse.Builder b = ReceiveResponse.newBuilder();
    LeasedRecords.Builder current = null;
    int size = 0;
    int records = 0;
    for (Delivery d : deliveries) {
      LeasedRecord r = LeasedRecord.newBuilder().setRecord(RecordMapper.toWire(d.record()))
          .setDeliveryAttempt(d.attempt()).setLeaseDeadlineMs(d.leaseDeadlineMs()).build();
      int recordSize = AnswerCap.fieldSize(LeasedRecords.RECORDS_FIELD_NUMBER, r);
      boolean samePartition = current != null && current.getTopic().equals(d.topic())
          && current.getPartition() == d.partition();
      int added = recordSize + (samePartition ? 0 : AnswerCap.PARTITION_OVERHEAD);
      if (records > 0 && size + added > AnswerCap.BYTES) {
        b.addBatches(current);
        out.add(b.build());
        b = ReceiveResponse.newBuilder();
        current = null;
        size = 0;
        records = 0;
        samePartition = false;
        added = recordSize + AnswerCap.PARTITION_OVERHEAD;
      }
      if (!samePartition) {
        if (current != null) {
          b.addBatches(current);
        }
        current = LeasedRecords.newBuilder().setTopic(d.topic()).setPartition(d.partition());
      }
      current.addRecords(r);
      size += added;
      records++;
    }
    if (current != null) {
      b.addBatches(current);
      out.add(b.build());
    }
    return out;
  }

  @Override
  public void replaced(BrokerException why) {
    fail(Errors.toStatus(why)); // ABORTED, with its ErrorInfo like every other error of the broker
  }

  @Override
  public void shutDown(String why) {
    fail(Status.UNAVAILABLE.withDescription(why).asRuntimeException());
  }

  private void fail(RuntimeException status) {
    AckGroup g = group;
    if (g == null) {
      endWith(status);
      return;
    }
    synchronized (g) {
      endWith(status);
    }
    gone(false);
  }

  private void endWith(RuntimeException status) {
    draining.remove(drain);
    if (!ended) {
      ended = true;
      try {
        out.onError(status);
      } catch (RuntimeException ignored) {
        // already cancelled
      }
    }
  }

  /**
   * The stream is over. The deliveries it did not outlive (written less than a second ago, or not
   * yet) do not count as attempts when it {@code failed} (the client reset it, the connection
   * broke), nor whenever its member hands its leases back as its stream ends (no client id): a
   * member that closes right after its last acks is not charged for what the broker sent it
   * meanwhile. A member with a client id that ends its stream cleanly keeps its leases, and so
   * they count.
   */
  private void gone(boolean failed) {
    ended = true;
    draining.remove(drain);
    AckGroup g = group;
    AckMember m = member;
    if (g == null || m == null) {
      return; // it never joined: nothing was sent or reserved
    }
    synchronized (g) {
      List<SentDelivery> notOutlived = unconfirmed.endedAt(System.nanoTime());
      if (failed || !m.keepsLeases()) {
        g.undeliver(m, notOutlived);
      }
      OutboundMemory.Waiter w = waiter;
      waiter = null;
      if (w != null) {
        w.cancel(); // if it was granted meanwhile, grantedLater sees the end and gives it back
      }
      account.release(inTransport + granted.getAndSet(0));
      inTransport = 0;
      g.disconnect(m, this);
    }
  }

  @Override
  public void onError(Throwable t) {
    gone(true);
  }

  @Override
  public void onCompleted() {
    draining.remove(drain);
    AckGroup g = group;
    if (g != null) {
      synchronized (g) {
        if (!ended) {
          ended = true;
          out.onCompleted();
        }
      }
      gone(false);
    } else if (!ended) {
      ended = true;
      out.onCompleted();
    }
  }
}
