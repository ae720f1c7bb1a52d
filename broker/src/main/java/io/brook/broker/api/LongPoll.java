package io.brook.broker.api;

import io.brook.broker.topics.Partition;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A fetch waiting for records without holding a thread: it registers a waiter on each partition and
 * a timeout, and whichever fires first runs {@code answer} once on the read executor.
 */
final class LongPoll {
  private final AtomicBoolean done = new AtomicBoolean();
  private final List<Partition> partitions = new ArrayList<>();
  private final Runnable waiter = this::fire;
  private final Runnable answer;
  private final ApiSettings settings;
  private ScheduledFuture<?> timeout;

  LongPoll(Runnable answer, ApiSettings settings) {
    this.answer = answer;
    this.settings = settings;
  }

  /** Waits on each (partition, offset) and at most waitMs. */
  void start(List<Partition> waitOn, List<Long> offsets, long waitMs) {
    timeout = settings.timer().schedule(this::fire, waitMs, TimeUnit.MILLISECONDS);
    for (int i = 0; i < waitOn.size(); i++) {
      Partition p = waitOn.get(i);
      partitions.add(p);
      if (!p.whenDataBeyond(offsets.get(i), waiter)) {
        break; // data arrived already: fired
      }
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
    if (timeout != null) {
      timeout.cancel(false);
    }
    for (Partition p : partitions) {
      p.cancelWaiter(waiter);
    }
  }
}
