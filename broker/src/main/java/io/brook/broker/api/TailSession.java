package io.brook.broker.api;

import com.google.common.util.concurrent.MoreExecutors;
import io.brook.broker.core.FetchService;
import io.brook.broker.core.PartitionRead;
import io.brook.broker.core.TailCursor;
import io.brook.broker.outbound.OutboundMemory;
import io.brook.protocol.v1.TailPartition;
import io.brook.protocol.v1.TailRequest;
import io.brook.protocol.v1.TailResponse;
import io.grpc.stub.ServerCallStreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * One tail stream. All its work runs on a sequential executor over the read pool, so the stream is
 * written from one thread at a time and never by two. It sends one message at a time: the next only
 * once the transport wrote the last to the socket ({@code isReady} with a threshold of one byte), and
 * only with memory reserved for it on its connection's {@link OutboundMemory.Account}, so a client
 * that reads slowly or not at all holds at most one message here, and all of them together at most
 * what the broker-wide bound allows. When every partition is caught up it leaves a waiter on each and
 * holds no thread until an append wakes it. Partitions take turns, so a busy one cannot starve the
 * others of the stream.
 */
final class TailSession {
  private final ServerCallStreamObserver<TailResponse> call;
  private final List<Cursor> cursors;
  private final Executor serial;
  private final int maxRecords;
  private final int maxBytes;
  private final Draining draining;
  private final OutboundMemory.Account account;
  private final Runnable drainAction = this::shutDown;
  private volatile boolean finished;
  /** The cursor whose turn is next. Only the serial executor touches it, as the fields below. */
  private int turn;
  /** Bytes reserved for the message about to be read, or sent and maybe not yet written. */
  private long reserved;
  private OutboundMemory.Waiter waiter;

  private final class Cursor {
    final TailCursor at;
    final Runnable waiter = TailSession.this::schedule;

    Cursor(TailCursor at) {
      this.at = at;
    }
  }

  private TailSession(ServerCallStreamObserver<TailResponse> call, List<Cursor> cursors, Executor serial,
      int maxRecords, int maxBytes, Draining draining, OutboundMemory.Account account) {
    this.call = call;
    this.draining = draining;
    this.cursors = cursors;
    this.serial = serial;
    this.maxRecords = maxRecords;
    this.maxBytes = maxBytes;
    this.account = account;
  }

  static TailSession open(FetchService fetch, TailRequest request, ServerCallStreamObserver<TailResponse> call,
      ApiSettings settings, OutboundMemory.Account account) {
    if (request.getPartitionsCount() == 0) {
      throw Errors.invalid("a tail needs at least one partition");
    }
    List<Cursor> cursors = new ArrayList<>();
    TailSession session = new TailSession(call, cursors, MoreExecutors.newSequentialExecutor(settings.readExecutor()),
        FetchLimits.maxRecords(request.getMaxRecords()), FetchLimits.maxBytes(request.getMaxBytes()),
        settings.draining(), account);
    for (TailPartition tp : request.getPartitionsList()) {
      cursors.add(session.new Cursor(fetch.tail(tp.getTopic(), tp.getPartition(),
          Positions.toCore(tp.hasStart() ? tp.getStart() : null), GrpcAnswerSize.INSTANCE)));
    }
    return session;
  }

  void start() {
    call.setOnReadyThreshold(1); // ready = everything sent is written: what was reserved is free again
    call.setOnReadyHandler(this::schedule);
    call.setOnCancelHandler(() -> {
      finished = true;
      cursors.forEach(c -> c.at.cancelWait(c.waiter));
      draining.remove(drainAction);
      serial.execute(this::releaseAll);
    });
    draining.add(drainAction);
    schedule();
  }

  /** The broker is shutting down: end the stream UNAVAILABLE, after a send in progress (same executor). */
  private void shutDown() {
    serial.execute(() -> {
      if (finished) {
        return;
      }
      finished = true;
      cursors.forEach(c -> c.at.cancelWait(c.waiter));
      releaseAll();
      call.onError(Draining.shuttingDown());
    });
  }

  private void schedule() {
    if (!finished) {
      serial.execute(this::drain);
    }
  }

  /** Sends what is available while the client keeps up; then waits for appends, onReady or memory. */
  private void drain() {
    try {
      while (!finished && call.isReady()) {
        if (waiter != null) {
          return; // memory is on its way: its grant schedules the next drain
        }
        if (reserved == 0 && !reserve()) {
          return;
        }
        if (!sendOne()) {
          for (Cursor c : cursors) {
            if (!c.at.waitForRecords(c.waiter)) {
              break; // data arrived meanwhile: the waiter scheduled another drain
            }
          }
          if (finished) { // cancelled while registering: the cancel handler may have run before us
            cursors.forEach(c -> c.at.cancelWait(c.waiter));
          }
          releaseAll(); // nothing to send: an idle tail holds no memory
          return;
        }
      }
    } catch (RuntimeException e) {
      finished = true;
      cursors.forEach(c -> c.at.cancelWait(c.waiter));
      draining.remove(drainAction);
      releaseAll();
      call.onError(Errors.toStatus(e));
    }
  }

  /** Reserves room for one message; false when it must wait (the grant schedules a drain). */
  private boolean reserve() {
    long want = Math.min(maxBytes, AnswerCap.BYTES);
    OutboundMemory.Waiter w = account.reserve(want, () -> serial.execute(() -> {
      waiter = null;
      reserved = want;
      if (finished) {
        releaseAll();
      } else {
        drain();
      }
    }));
    if (w != null) {
      waiter = w;
      return false;
    }
    reserved = want;
    return true;
  }

  /**
   * Sends one message from the first partition, in turn, that has records; false when none has. The
   * transport being ready means the message before was written: its memory serves this one.
   */
  private boolean sendOne() {
    for (int i = 0; i < cursors.size(); i++) {
      Cursor c = cursors.get((turn + i) % cursors.size());
      PartitionRead read = c.at.read(maxRecords, maxBytes);
      if (read.records().isEmpty()) {
        continue;
      }
      TailResponse message = TailResponse.newBuilder().setRecords(FetchGrpcService.toWire(read)).build();
      resize(message.getSerializedSize() + AnswerCap.FRAME_HEADER);
      call.onNext(message);
      turn = (turn + i + 1) % cursors.size();
      return true;
    }
    return false;
  }

  /** Makes the reservation the message's real size. */
  private void resize(long size) {
    account.resize(reserved, size);
    reserved = size;
  }

  private void releaseAll() {
    OutboundMemory.Waiter w = waiter;
    waiter = null;
    if (w != null && !w.cancel()) {
      return; // granted meanwhile: its callback sees finished (or the idle drain) and releases
    }
    account.release(reserved);
    reserved = 0;
  }
}
