package io.brook.broker.it.crash;

import io.grpc.ManagedChannel;

/**
 * The workers' way to the broker across kills. The harness marks the link down before it kills the
 * broker; a worker asking for the channel then parks until the broker is back and checked, so the
 * harness verifies while no worker changes anything. {@link #stop()} releases everyone for good.
 */
final class BrokerLink {
  private ManagedChannel channel;
  private boolean up;
  private boolean stopped;
  private int parked;

  synchronized void up(ManagedChannel c) {
    channel = c;
    up = true;
    notifyAll();
  }

  synchronized void down() {
    up = false;
  }

  synchronized boolean isUp() {
    return up && !stopped;
  }

  synchronized void stop() {
    stopped = true;
    notifyAll();
  }

  /** The channel to use now, parking while the broker is down; null once stopped. */
  synchronized ManagedChannel channel() throws InterruptedException {
    if (!up && !stopped) {
      parked++;
      notifyAll();
      try {
        while (!up && !stopped) {
          wait();
        }
      } finally {
        parked--;
      }
    }
    return stopped ? null : channel;
  }

  /** Waits until {@code workers} workers are parked (all that exist); false after the timeout. */
  synchronized boolean awaitParked(int workers, long timeoutMs) throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (parked < workers) {
      long left = deadline - System.currentTimeMillis();
      if (left <= 0) {
        return false;
      }
      wait(left);
    }
    return true;
  }
}
