package io.brook.broker.it.crash;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;

/**
 * A client thread of the crash run. It gets its channel from the {@link BrokerLink} (parking while
 * the broker is down), and when asked to drain it finishes what it has started and ends.
 */
abstract class Worker implements Runnable {
  final String name;
  final BrokerLink link;
  final Violations violations;
  private final Thread thread;
  private volatile boolean draining;
  private int failuresWhileUp;

  Worker(String name, BrokerLink link, Violations violations) {
    this.name = name;
    this.link = link;
    this.violations = violations;
    this.thread = new Thread(this, "crash-" + name);
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** Finish what is under way (unanswered batches, unsettled records), then end. */
  void drain() {
    draining = true;
  }

  boolean draining() {
    return draining;
  }

  boolean awaitEnd(long timeoutMs) throws InterruptedException {
    thread.join(timeoutMs);
    return !thread.isAlive();
  }

  void interrupt() {
    thread.interrupt();
  }

  @Override
  public final void run() {
    try {
      work();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException | AssertionError e) {
      violations.add(name + " stopped: " + e);
    }
  }

  abstract void work() throws InterruptedException;

  /**
   * A call failed. While the broker is down that is expected (the caller parks on its next
   * {@link BrokerLink#channel()}); while it is up the caller retries shortly, and a long run of such
   * failures is a violation of its own.
   */
  void failed(StatusRuntimeException e) throws InterruptedException {
    if (!link.isUp()) {
      return;
    }
    if (++failuresWhileUp % 50 == 0) {
      violations.add(name + ": " + failuresWhileUp + " calls failed while the broker was up, last: " + e.getStatus());
    }
    Thread.sleep(100);
  }

  void succeeded() {
    failuresWhileUp = 0;
  }

  static boolean is(StatusRuntimeException e, Status.Code code) {
    return e.getStatus().getCode() == code;
  }
}
