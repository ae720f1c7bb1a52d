package io.brook.broker.api;

import com.google.common.util.concurrent.MoreExecutors;
import io.brook.broker.storage.LogRecord;
import io.brook.broker.storage.ReadResult;
import io.brook.broker.topics.Partition;
import io.brook.broker.topics.TopicManager;
import io.brook.protocol.v1.PartitionRecords;
import io.brook.protocol.v1.TailPartition;
import io.brook.protocol.v1.TailRequest;
import io.brook.protocol.v1.TailResponse;
import io.grpc.stub.ServerCallStreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * One tail stream. All its work runs on a sequential executor over the read pool, so the stream is
 * written from one thread at a time and never by two. It sends only while the transport is ready
 * ({@code isReady}); when the client reads slowly it stops and resumes in {@code onReady}, so the
 * broker never buffers without bound. When every partition is caught up it leaves a waiter on each
 * and holds no thread until an append wakes it.
 */
final class TailSession {
  private final ServerCallStreamObserver<TailResponse> call;
  private final List<Cursor> cursors;
  private final Executor serial;
  private final int maxRecords;
  private final int maxBytes;
  private final Draining draining;
  private final Runnable drainAction = this::shutDown;
  private volatile boolean finished;

  private final class Cursor {
    final Partition partition;
    long next;
    final Runnable waiter = TailSession.this::schedule;

    Cursor(Partition partition, long next) {
      this.partition = partition;
      this.next = next;
    }
  }

  private TailSession(ServerCallStreamObserver<TailResponse> call, List<Cursor> cursors, Executor serial,
      int maxRecords, int maxBytes, Draining draining) {
    this.call = call;
    this.draining = draining;
    this.cursors = cursors;
    this.serial = serial;
    this.maxRecords = maxRecords;
    this.maxBytes = maxBytes;
  }

  static TailSession open(TopicManager topics, TailRequest request, ServerCallStreamObserver<TailResponse> call,
      ApiSettings settings) {
    if (request.getPartitionsCount() == 0) {
      throw Errors.invalid("a tail needs at least one partition");
    }
    List<Cursor> cursors = new ArrayList<>();
    TailSession session = new TailSession(call, cursors, MoreExecutors.newSequentialExecutor(settings.readExecutor()),
        FetchLimits.maxRecords(request.getMaxRecords()), FetchLimits.maxBytes(request.getMaxBytes()),
        settings.draining());
    for (TailPartition tp : request.getPartitionsList()) {
      Partition p = topics.get(tp.getTopic()).partition(tp.getPartition());
      long start = Positions.resolve(p, tp.hasStart() ? tp.getStart() : null, p.endOffset());
      cursors.add(session.new Cursor(p, start));
    }
    return session;
  }

  void start() {
    call.setOnReadyHandler(this::schedule);
    call.setOnCancelHandler(() -> {
      finished = true;
      cursors.forEach(c -> c.partition.cancelWaiter(c.waiter));
      draining.remove(drainAction);
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
      cursors.forEach(c -> c.partition.cancelWaiter(c.waiter));
      call.onError(Draining.shuttingDown());
    });
  }

  private void schedule() {
    if (!finished) {
      serial.execute(this::drain);
    }
  }

  /** Sends what is available while the client keeps up; then waits for appends or for onReady. */
  private void drain() {
    try {
      while (!finished && call.isReady()) {
        boolean sent = false;
        for (Cursor c : cursors) {
          if (finished || !call.isReady()) {
            return;
          }
          ReadResult rr = c.partition.read(c.next, maxRecords, maxBytes);
          if (rr.records().isEmpty()) {
            continue;
          }
          PartitionRecords.Builder pr = PartitionRecords.newBuilder()
              .setTopic(c.partition.topic().name())
              .setPartition(c.partition.index())
              .setNextOffset(rr.nextOffset())
              .setLogStartOffset(c.partition.startOffset())
              .setEndOffset(c.partition.endOffset());
          for (LogRecord r : rr.records()) {
            pr.addRecords(RecordMapper.toWire(r));
          }
          c.partition.topic().traffic().fetched(rr.records());
          call.onNext(TailResponse.newBuilder().setRecords(pr).build());
          c.next = rr.nextOffset();
          sent = true;
        }
        if (!sent) {
          for (Cursor c : cursors) {
            if (!c.partition.whenDataBeyond(c.next, c.waiter)) {
              break; // data arrived meanwhile: the waiter scheduled another drain
            }
          }
          if (finished) { // cancelled while registering: the cancel handler may have run before us
            cursors.forEach(c -> c.partition.cancelWaiter(c.waiter));
          }
          return;
        }
      }
    } catch (RuntimeException e) {
      finished = true;
      cursors.forEach(c -> c.partition.cancelWaiter(c.waiter));
      draining.remove(drainAction);
      call.onError(Errors.toStatus(e));
    }
  }
}
