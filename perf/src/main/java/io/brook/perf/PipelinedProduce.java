package io.brook.perf;

import io.brook.protocol.v1.ProduceResult;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.ProduceStreamRequest;
import io.brook.protocol.v1.ProduceStreamResponse;
import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Pre-built produce requests sent in turn on one ProduceStream, at most {@code inFlight}
 * unanswered, until {@code records} records have gone (the last request may round up): the
 * unpaced load of ProduceDriver and of RetentionDriver's prefill.
 */
final class PipelinedProduce {
  private static final long ANSWER_TIMEOUT_S = 60;

  private PipelinedProduce() {}

  /** Returns the seconds from the first send to the last answer; throws if any record was refused. */
  static double send(ManagedChannel channel, List<ProduceStreamRequest> requests, long records,
      int recordsPerRequest, int inFlight, String what) throws InterruptedException {
    Semaphore window = new Semaphore(inFlight);
    CountDownLatch done = new CountDownLatch(1);
    AtomicLong acked = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    StreamObserver<ProduceStreamRequest> stream = ProduceServiceGrpc.newStub(channel).produceStream(
        new StreamObserver<>() {
          @Override
          public void onNext(ProduceStreamResponse r) {
            for (ProduceResult result : r.getResponse().getResultsList()) {
              if (result.getErrorCodeValue() != 0) {
                failure.compareAndSet(null, new IllegalStateException(result.getErrorMessage()));
              }
              acked.addAndGet(result.getRecordCount());
            }
            window.release();
          }

          @Override
          public void onError(Throwable t) {
            failure.compareAndSet(null, t);
            window.release(inFlight);
            done.countDown();
          }

          @Override
          public void onCompleted() {
            done.countDown();
          }
        });
    long started = System.nanoTime();
    long sent = 0;
    for (int i = 0; sent < records && failure.get() == null; i++) {
      if (!window.tryAcquire(ANSWER_TIMEOUT_S, TimeUnit.SECONDS)) {
        throw new IllegalStateException(what + ": no answer in " + ANSWER_TIMEOUT_S + " s");
      }
      stream.onNext(requests.get(i % requests.size()));
      sent += recordsPerRequest;
    }
    window.tryAcquire(inFlight, ANSWER_TIMEOUT_S, TimeUnit.SECONDS);
    stream.onCompleted();
    done.await(ANSWER_TIMEOUT_S, TimeUnit.SECONDS);
    double seconds = (System.nanoTime() - started) / 1e9;
    if (failure.get() != null) {
      throw new IllegalStateException(what + " failed", failure.get());
    }
    if (acked.get() < records) {
      throw new IllegalStateException(what + ": only " + acked.get() + " of " + records + " records acknowledged");
    }
    return seconds;
  }
}
