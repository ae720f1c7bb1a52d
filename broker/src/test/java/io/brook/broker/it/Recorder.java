package io.brook.broker.it;

import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A StreamObserver that records what a stream sends: every message, and its end (the Throwable, or
 * "completed"), in arrival order.
 */
final class Recorder<T> implements StreamObserver<T> {
  private final BlockingQueue<Object> events = new LinkedBlockingQueue<>();
  private final List<T> messages = new ArrayList<>();
  private final CountDownLatch ended = new CountDownLatch(1);

  @Override
  public synchronized void onNext(T message) {
    messages.add(message);
    events.add(message);
  }

  @Override
  public void onError(Throwable t) {
    events.add(t);
    ended.countDown();
  }

  @Override
  public void onCompleted() {
    events.add("completed");
    ended.countDown();
  }

  /** The next message or end, or null when nothing came within the wait. */
  Object next(long seconds) throws InterruptedException {
    return events.poll(seconds, TimeUnit.SECONDS);
  }

  boolean awaitEnd(long seconds) throws InterruptedException {
    return ended.await(seconds, TimeUnit.SECONDS);
  }

  synchronized List<T> messages() {
    return new ArrayList<>(messages);
  }
}
