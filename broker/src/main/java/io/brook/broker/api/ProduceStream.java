package io.brook.broker.api;

import io.brook.broker.metrics.ApiObserver;
import io.brook.broker.outbound.OutboundMemory;
import io.brook.protocol.v1.ProduceResponse;
import io.brook.protocol.v1.ProduceStreamRequest;
import io.brook.protocol.v1.ProduceStreamResponse;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * One produce stream. Requests are appended as they arrive; their answers complete at once
 * (WRITTEN) or after a group-commit force (SYNCED), possibly out of order, and are sent strictly in
 * request order from a FIFO.
 *
 * <p>Inbound flow control: the broker asks gRPC for at most {@code maxInflight} requests ahead and
 * for more only once the answers sent are written to the socket and the client's connection is under
 * its share of the broker's outbound memory (answers are counted there); a client that sends faster
 * than the broker answers, or stops reading answers, waits instead of filling the broker's memory.
 * gRPC callbacks and force completions (the flusher thread) meet here: all state is guarded by
 * this object's monitor, so the stream is written by one thread at a time.
 */
final class ProduceStream implements StreamObserver<ProduceStreamRequest> {
  private record Pending(long correlationId, CompletableFuture<ProduceResponse> answer) {}

  private final ProduceMapper handler;
  private final ServerCallStreamObserver<ProduceStreamResponse> call;
  private final ArrayDeque<Pending> pending = new ArrayDeque<>();
  private final Draining draining;
  private final ApiObserver observer;
  private final OutboundMemory.Account account;
  private final Executor executor;
  private final Runnable drain = this::drain;
  /** Memory of answers sent and maybe not yet written. */
  private long inTransport;
  private OutboundMemory.Waiter waiter;
  private int owed;
  /** Requests being appended by onNext, not yet in pending. */
  private int handling;
  private boolean clientDone;
  /** The broker is shutting down: read no more, answer what was read, then end UNAVAILABLE. */
  private boolean stopping;
  private boolean closed;

  ProduceStream(ProduceMapper handler, ServerCallStreamObserver<ProduceStreamResponse> call, int maxInflight,
      Draining draining, ApiObserver observer, OutboundMemory.Account account, Executor executor) {
    this.handler = handler;
    this.call = call;
    this.draining = draining;
    this.observer = observer;
    this.account = account;
    this.executor = executor;
    call.disableAutoRequest();
    call.setOnReadyThreshold(1); // ready = every answer sent is written
    call.setOnReadyHandler(this::onReady);
    call.setOnCancelHandler(this::onCancel);
    call.request(maxInflight);
    draining.add(drain);
  }

  @Override
  public void onNext(ProduceStreamRequest message) {
    synchronized (this) {
      if (closed) {
        return; // ended (cancelled, failed, or drained): a request it never answers is not appended either
      }
      handling++; // a drain waits for it: appended means answered
    }
    long arrived = System.nanoTime();
    CompletableFuture<ProduceResponse> answer;
    try {
      answer = handler.handle(message.getRequest());
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e); // sent in order, after the answers before it
    }
    synchronized (this) {
      handling--;
      if (closed) {
        return;
      }
      pending.add(new Pending(message.getCorrelationId(), answer));
    }
    answer.whenComplete((r, f) -> {
      observer.produceAnswered(System.nanoTime() - arrived);
      sendReady();
    });
  }

  /** Sends every answer at the head of the FIFO that is complete. */
  private synchronized void sendReady() {
    while (!closed && !pending.isEmpty() && pending.peek().answer().isDone()) {
      Pending head = pending.poll();
      ProduceResponse response;
      try {
        response = head.answer().join();
      } catch (RuntimeException e) {
        closed = true; // a malformed request ends the stream, after everything before it was answered
        draining.remove(drain);
        StatusRuntimeException status = Errors.toStatus(e.getCause() != null ? e.getCause() : e);
        call.onError(status);
        return;
      }
      ProduceStreamResponse answer = ProduceStreamResponse.newBuilder().setCorrelationId(head.correlationId())
          .setResponse(response).build();
      int size = answer.getSerializedSize() + AnswerCap.FRAME_HEADER;
      account.force(size); // owed to a request already read; more are read only once there is room
      inTransport += size;
      call.onNext(answer);
      if (stopping) {
        continue; // no more reads: what the client sent beyond is resent after it reconnects
      }
      owed++;
    }
    askForMore();
    if (!closed && clientDone && pending.isEmpty()) {
      closed = true;
      draining.remove(drain);
      call.onCompleted();
    } else if (!closed && stopping && pending.isEmpty() && handling == 0) {
      closed = true;
      call.onError(Draining.shuttingDown());
    }
  }

  private void drain() {
    synchronized (this) {
      stopping = true;
    }
    sendReady();
  }

  private synchronized void onReady() {
    if (call.isReady()) {
      account.release(inTransport);
      inTransport = 0;
    }
    askForMore();
  }

  /** Asks for the requests owed once the answers are written and the connection has room. */
  private synchronized void askForMore() {
    if (owed == 0 || closed || stopping || waiter != null || !call.isReady()) {
      return;
    }
    account.release(inTransport);
    inTransport = 0;
    // Waits while the connection is over its share; the grant comes on a releasing thread, which must
    // take no lock: the retry goes to the read pool.
    OutboundMemory.Waiter w = account.reserve(0, () -> executor.execute(this::roomAgain));
    if (w != null) {
      waiter = w;
      return;
    }
    call.request(owed);
    owed = 0;
  }

  private void roomAgain() {
    synchronized (this) {
      waiter = null;
    }
    askForMore();
  }

  private synchronized void onCancel() {
    closed = true;
    pending.clear();
    draining.remove(drain);
    if (waiter != null) {
      waiter.cancel();
      waiter = null;
    }
    account.release(inTransport);
    inTransport = 0;
  }

  @Override
  public void onError(Throwable t) {
    onCancel(); // the client went away; every answered request was already appended
  }

  @Override
  public void onCompleted() {
    synchronized (this) {
      clientDone = true;
    }
    sendReady();
  }
}
