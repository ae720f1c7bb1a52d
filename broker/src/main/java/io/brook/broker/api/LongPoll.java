package io.brook.broker.api;

import io.brook.broker.topics.Partition;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
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
final class LongPoll {
  private final AtomicBoolean done = new AtomicBoolean();
  private final List<Partition> partitions = new CopyOnWriteArrayList<>();
  private final Runnable waiter = this::fire;
  /** A shutdown answers the poll now with what is there, instead of after its wait. */
  private final Runnable drain = this::fire;
  private final Runnable answer;
  private final ApiSettings settings;
  private volatile ScheduledFuture<?> timeout;

  LongPoll(Runnable answer, ApiSettings settings) {
    this.answer = answer;
    this.settings = settings;
  }

  /** Waits on each (partition, offset) and at most waitMs. */
  void start(List<Partition> waitOn, List<Long> offsets, long waitMs) {
    for (int i = 0; i < waitOn.size() && !done.get(); i++) {
      Partition p = waitOn.get(i);
      partitions.add(p);
      p.whenDataBeyond(offsets.get(i), waiter);
    }
    if (done.get()) {
      removeWaiters(); // fired while registering: drop what was registered after the firing
      return;
    }
    timeout = settings.timer().schedule(this::fire, waitMs, TimeUnit.MILLISECONDS);
    settings.draining().add(drain);
    if (done.get()) {
      settings.draining().remove(drain); // fired before it was registered: cancel() could not remove it
    }
  }

  private void fire() {
    if (!done.compareAndSet(false, true)) {
      return;
    }
    cancel();
    settings.readExecutor().execute(answer);
  }

  /** Removes the waiters and the timeout (also when the client gives up). */
  void cancel() {
    done.set(true);
    settings.draining().remove(drain);
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
