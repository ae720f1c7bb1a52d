package io.brook.client.consumer;

import io.brook.client.errors.BrokerUnavailableException;
import io.brook.client.errors.BrookException;
import io.brook.client.errors.BrookTimeoutException;
import io.brook.client.errors.WakeupException;
import io.brook.client.internal.Backoff;
import io.brook.client.internal.ErrorMapping;
import io.grpc.Context;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The polling thread's blocking calls: each runs in a cancellable gRPC context so that {@link
 * #wakeup()} (from any thread) ends it at once, failures become typed exceptions (ErrorMapping), and
 * retriable failures can be retried with backoff within a deadline.
 */
final class Calls {
  private final AtomicBoolean wakeupPending = new AtomicBoolean();
  private final Object sleeper = new Object();
  private final long backoffMs;
  private final long backoffMaxMs;
  private volatile Context.CancellableContext current;

  Calls(long backoffMs, long backoffMaxMs) {
    this.backoffMs = backoffMs;
    this.backoffMaxMs = backoffMaxMs;
  }

  /** Any thread: the current or next blocking call throws {@link WakeupException}. */
  void wakeup() {
    wakeupPending.set(true);
    Context.CancellableContext c = current;
    if (c != null) {
      c.cancel(null);
    }
    synchronized (sleeper) {
      sleeper.notifyAll();
    }
  }

  void checkWakeup() {
    if (wakeupPending.compareAndSet(true, false)) {
      throw new WakeupException();
    }
  }

  /** One attempt; gRPC failures as typed exceptions. */
  <T> T once(Callable<T> call) {
    checkWakeup();
    Context.CancellableContext context = Context.current().withCancellation();
    current = context;
    try {
      checkWakeup();
      return context.call(call);
    } catch (RuntimeException e) {
      checkWakeup(); // a cancelled call after wakeup() is the wakeup, not a failure
      throw ErrorMapping.fromThrowable(e);
    } catch (Exception e) {
      throw ErrorMapping.fromThrowable(e);
    } finally {
      current = null;
      context.cancel(null);
    }
  }

  /**
   * Retries while the broker is unreachable or does not answer in time, with backoff, until {@code
   * timeoutMs} has passed, then throws the last failure. Other failures, retriable ones included
   * (an unknown partition, a storage error), are the caller's to decide on: thrown at once.
   */
  <T> T retrying(long timeoutMs, Callable<T> call) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    Backoff backoff = new Backoff(backoffMs, backoffMaxMs);
    while (true) {
      try {
        return once(call);
      } catch (BrookException e) {
        if (!unreachable(e)) {
          throw e;
        }
        long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (leftMs <= 0) {
          throw e;
        }
        sleep(Math.min(leftMs, backoff.nextDelayMs()));
      }
    }
  }

  /** Sleeps, or returns early (throwing) on wakeup. */
  void sleep(long ms) {
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
    synchronized (sleeper) {
      while (true) {
        checkWakeup();
        long left = until - System.nanoTime();
        if (left <= 0) {
          return;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(sleeper, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new BrookException("INTERRUPTED", "interrupted while waiting to retry", e);
        }
      }
    }
  }

  /** Whether a failure means the broker could not be reached or did not answer (worth a retry later). */
  static boolean unreachable(BrookException e) {
    return e instanceof BrokerUnavailableException || e instanceof BrookTimeoutException;
  }
}
