package io.brook.broker.api;

import io.brook.broker.core.FetchQuery;
import io.brook.broker.core.FetchService;
import io.brook.broker.core.LongPoll;
import io.brook.broker.core.PartitionRead;
import io.brook.broker.outbound.OutboundMemory;
import io.brook.protocol.v1.FetchResponse;
import io.grpc.stub.ServerCallStreamObserver;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;

/**
 * One Fetch call. Memory for its answer is reserved on the connection's {@link OutboundMemory.Account}
 * before each read (up to max_bytes, then set to the answer's real size) and given back when the call
 * closes, so the answers of clients that do not read stay within the broker's bound; a fetch that must
 * wait for memory waits its turn, holding nothing but its place. A long poll holds no memory while it
 * waits for records.
 */
final class FetchCall {
  private final FetchService fetch;
  private final FetchQuery query;
  private final ServerCallStreamObserver<FetchResponse> call;
  private final int maxBytes;
  private final ApiSettings settings;
  private final OutboundMemory.Account account;
  private final Runnable drainWait = this::drainWhileWaiting;
  /** Guarded by this: bytes reserved for the answer, and the wait for them. */
  private long reserved;
  private OutboundMemory.Waiter waiter;
  private boolean over;
  private LongPoll poll;

  FetchCall(FetchService fetch, FetchQuery query, ServerCallStreamObserver<FetchResponse> call, ApiSettings settings,
      OutboundMemory.Account account) {
    this.fetch = fetch;
    this.query = query;
    this.call = call;
    this.maxBytes = query.maxBytes();
    this.settings = settings;
    this.account = account;
  }

  void start() {
    call.setOnCancelHandler(this::end);
    call.setOnCloseHandler(this::end);
    withMemory(this::firstRead);
  }

  private void firstRead() {
    List<PartitionRead> first;
    LongPoll p;
    try {
      first = fetch.read(query, GrpcAnswerSize.INSTANCE);
      p = fetch.longPoll(query, first, () -> withMemory(this::lastRead));
    } catch (RuntimeException e) {
      fail(e);
      return;
    }
    if (p == null) {
      answer(FetchGrpcService.toWire(first));
      return;
    }
    synchronized (this) {
      if (over) {
        return;
      }
      giveBack(); // a long poll holds no memory while it waits
      poll = p;
    }
    p.start();
  }

  private void lastRead() {
    if (call.isCancelled()) {
      end();
      return;
    }
    try {
      answer(FetchGrpcService.toWire(fetch.read(query, GrpcAnswerSize.INSTANCE)));
    } catch (RuntimeException e) {
      fail(e);
    }
  }

  /** Runs {@code read} once memory for the answer is reserved: now, or on the read pool when granted. */
  private void withMemory(Runnable read) {
    long want = maxBytes;
    OutboundMemory.Waiter w = account.reserve(want, () -> {
      try {
        settings.readExecutor().execute(() -> granted(want, read));
      } catch (RejectedExecutionException stopping) {
        // the broker stopped: the call is cancelled, and the connection's account closed with it
      }
    });
    synchronized (this) {
      if (w == null) {
        reserved = want;
      } else {
        waiter = w;
      }
    }
    if (w == null) {
      read.run();
    } else {
      settings.draining().add(drainWait);
    }
  }

  private void granted(long bytes, Runnable read) {
    settings.draining().remove(drainWait);
    synchronized (this) {
      waiter = null;
      reserved = bytes;
      if (over) {
        giveBack();
        return;
      }
    }
    read.run();
  }

  /** The broker stops while this fetch waits for memory: it is told to come back. */
  private void drainWhileWaiting() {
    synchronized (this) {
      if (waiter == null || !waiter.cancel()) {
        return; // granted: the read goes on and answers
      }
      waiter = null;
    }
    fail(Draining.shuttingDown());
  }

  /** Sends the answer, its reservation made its real size first. */
  private void answer(FetchResponse response) {
    long size = response.getSerializedSize() + AnswerCap.FRAME_HEADER;
    synchronized (this) {
      if (over) {
        return;
      }
      account.resize(reserved, size);
      reserved = size;
    }
    call.onNext(response);
    call.onCompleted();
  }

  private void fail(RuntimeException e) {
    synchronized (this) {
      giveBack();
    }
    call.onError(Errors.toStatus(e));
  }

  /** The call closed (answered and written) or was cancelled: nothing of it is held any more. */
  private void end() {
    LongPoll p;
    synchronized (this) {
      over = true;
      p = poll;
      if (waiter != null && waiter.cancel()) {
        waiter = null;
      }
      giveBack();
    }
    settings.draining().remove(drainWait);
    if (p != null) {
      p.cancel();
    }
  }

  private void giveBack() {
    account.release(reserved);
    reserved = 0;
  }
}
