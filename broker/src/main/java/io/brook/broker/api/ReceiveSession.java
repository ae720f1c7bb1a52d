package io.brook.broker.api;

import io.brook.broker.core.AckReceiver;
import io.brook.broker.core.AckService;
import io.brook.broker.core.ReceiveStart;
import io.brook.broker.core.ReceiveStream;
import io.brook.broker.delivery.Delivery;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.outbound.OutboundMemory;
import io.brook.broker.security.Caller;
import io.brook.protocol.v1.ReceiveRequest;
import io.brook.protocol.v1.ReceiveResponse;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One member's Receive stream, the gRPC side of an {@link AckReceiver}. The first message joins
 * (creating the ack group when absent); the broker answers with the member id, then leased records
 * whenever the group's dispatch finds room under the member's flow control. Everything sent goes
 * out under the group's monitor, so sends never interleave.
 *
 * <p>The stream takes records only when it can send them: its transport wrote everything sent before
 * ({@code isReady} with a one-byte threshold) and memory for a message is reserved on its
 * connection's {@link OutboundMemory.Account}. So a member that stops reading holds at most one
 * dispatch's records here, and a message never exceeds {@link AnswerCap} unless it carries a single
 * record.
 */
final class ReceiveSession implements StreamObserver<ReceiveRequest>, ReceiveStream {
  private final AckService acks;
  private final ServerCallStreamObserver<ReceiveResponse> out;
  private final String address;
  private final OutboundMemory.Account account;
  private volatile AckReceiver receiver;
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

  ReceiveSession(AckService acks, ServerCallStreamObserver<ReceiveResponse> out, String address,
      Draining draining, OutboundMemory.Account account) {
    this.acks = acks;
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
      if (receiver == null) {
        join(request); // then its settles, if any: a member taking over its leases may ack them at once
      } else if (request.hasFlowControl()) {
        receiver.flowControl(request.getFlowControl().getMaxOutstandingRecords(),
            request.getFlowControl().getMaxOutstandingBytes());
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
      receiver.settle(AckGrpcService.settlement(request.getAcksList(), request.getNacksList(),
          request.getExtensionsList()), failures -> {
            if ((!failures.isEmpty() || seq > 0) && !ended) {
              ReceiveResponse.Builder b = ReceiveResponse.newBuilder().setSettledSeq(Math.max(0, seq));
              failures.forEach(f -> b.addFailures(AckGrpcService.failure(f)));
              ReceiveResponse answer = b.build();
              int size = answer.getSerializedSize() + AnswerCap.FRAME_HEADER;
              account.force(size); // an answer owed to a request read: requests wait for the transport instead
              inTransport += size;
              out.onNext(answer);
            }
          });
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
    AckReceiver r = acks.open(new ReceiveStart(first.getGroup(), first.getTopicsList(), first.getClientId(),
        first.getFlowControl().getMaxOutstandingRecords(), first.getFlowControl().getMaxOutstandingBytes(), address,
        Caller.principal()));
    receiver = r;
    // The member id goes out before any record can.
    r.connect(this, id -> out.onNext(ReceiveResponse.newBuilder().setMemberId(id).setConfirmsSettles(true).build()));
  }

  /** The transport wrote what was queued: that memory is free and those deliveries arrived. */
  private void onReady() {
    AckReceiver r = receiver;
    if (r == null) {
      return;
    }
    r.locked(() -> {
      if (!ended && out.isReady()) {
        written();
      }
    });
    synchronized (this) {
      if (owed && !ended && out.isReady()) {
        owed = false;
        out.request(1);
      }
    }
    r.requestDispatch();
  }

  /** Everything sent so far is written (the transport is ready): its memory goes back. */
  private void written() {
    account.release(inTransport);
    inTransport = 0;
    receiver.written(System.nanoTime());
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
    AckReceiver r = receiver;
    if (r != null) {
      r.requestDispatch();
    }
  }

  @Override
  public boolean open() {
    return !ended;
  }

  @Override
  public void deliver(List<Delivery> deliveries) {
    if (ended) {
      return;
    }
    List<ReceiveResponse> messages = LeasedRecordMessages.of(deliveries);
    long size = 0;
    for (ReceiveResponse m : messages) {
      size += m.getSerializedSize() + AnswerCap.FRAME_HEADER;
    }
    // More than granted: the records' framing beyond their payload, or one record alone.
    account.resize(granted.getAndSet(0), size);
    inTransport += size;
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

  @Override
  public void replaced(BrokerException why) {
    fail(Errors.toStatus(why)); // ABORTED, with its ErrorInfo like every other error of the broker
  }

  @Override
  public void shutDown(String why) {
    fail(Status.UNAVAILABLE.withDescription(why).asRuntimeException());
  }

  private void fail(RuntimeException status) {
    AckReceiver r = receiver;
    if (r == null) {
      endWith(status);
      return;
    }
    r.locked(() -> endWith(status));
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
   * The stream is over: the receiver takes back what it did not outlive, as its rule says, and the
   * memory the stream held goes back.
   */
  private void gone(boolean failed) {
    ended = true;
    draining.remove(drain);
    AckReceiver r = receiver;
    if (r == null) {
      return; // it never joined: nothing was sent or reserved
    }
    r.end(failed, () -> {
      OutboundMemory.Waiter w = waiter;
      waiter = null;
      if (w != null) {
        w.cancel(); // if it was granted meanwhile, grantedLater sees the end and gives it back
      }
      account.release(inTransport + granted.getAndSet(0));
      inTransport = 0;
    });
  }

  @Override
  public void onError(Throwable t) {
    gone(true);
  }

  @Override
  public void onCompleted() {
    draining.remove(drain);
    AckReceiver r = receiver;
    if (r != null) {
      r.locked(() -> {
        if (!ended) {
          ended = true;
          out.onCompleted();
        }
      });
      gone(false);
    } else if (!ended) {
      ended = true;
      out.onCompleted();
    }
  }
}
