package io.brook.broker.core;

import io.brook.broker.topics.Partition;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A fetch waiting for records without holding a thread: it registers a waiter on each partition and
 * a timeout, and whichever fires first runs {@code answer} once on the read executor.
 *
 * <p>Waiters are registered before the timeout is scheduled, and removed again after registration if
 * the poll fired meanwhile (an append can fire it from another thread), so no waiter outlives its
 * poll on an idle partition.
 */
public final class LongPoll {
  private final AtomicBoolean done = new AtomicBoolean();
  private final List<Partition> partitions = new CopyOnWriteArrayList<>();
  private final Runnable waiter = this::fire;
  /** A shutdown answers the poll now with what is there, instead of after its wait. */
  private final Runnable drain = this::fire;
  private final Runnable answer;
  private final Executor readExecutor;
  private final ScheduledExecutorService timer;
  private final DrainRegistry draining;
  private final List<Partition> waitOn;
  private final List<Long> offsets;
  private final long waitMs;
  private volatile ScheduledFuture<?> timeout;

  /** Waits on each (partition, offset) for records beyond it, at most waitMs. */
  LongPoll(Runnable answer, Executor readExecutor, ScheduledExecutorService timer, DrainRegistry draining,
      List<Partition> waitOn, List<Long> offsets, long waitMs) {
    this.answer = answer;
    this.readExecutor = readExecutor;
    this.timer = timer;
    this.draining = draining;
    this.waitOn = waitOn;
    this.offsets = offsets;
    this.waitMs = waitMs;
  }

  public void start() {
    for (int i = 0; i < waitOn.size() && !done.get(); i++) {
      Partition p = waitOn.get(i);
      partitions.add(p);
      p.whenDataBeyond(offsets.get(i), waiter);
    }
    if (done.get()) {
      removeWaiters(); // fired while registering: drop what was registered after the firing
      return;
    }
    timeout = timer.schedule(this::fire, waitMs, TimeUnit.MILLISECONDS);
    draining.add(drain);
    if (done.get()) {
      draining.remove(drain); // fired before it was registered: cancel() could not remove it
    }
  }

  private void fire() {
    if (!done.compareAndSet(false, true)) {
      return;
    }
    cancel();
    readExecutor.execute(answer);
  }

  /** Removes the waiters and the timeout (also when the client gives up). */
  public void cancel() {
    done.set(true);
    draining.remove(drain);
    ScheduledFuture<?> t = timeout;
    if (t != null) {
      t.cancel(false);
    }
    removeWaiters();
  }

  private void removeWaiters() {
    for (Partition p : partitions) {
      p.cancelWaiter(waiter);
    }
  }
}
