package io.brook.broker.cli;

import java.util.concurrent.CountDownLatch;
import sun.misc.Signal;

/**
 * Waits for SIGTERM or SIGINT. Handling them (instead of letting the JVM run its shutdown hooks on
 * them) lets {@code brook broker} stop the broker on its main thread and exit 0, as supervisors
 * (Kubernetes, systemd) expect of a clean stop; the JVM's own handling ends the process with 143.
 */
final class TermSignal {
  private final CountDownLatch received = new CountDownLatch(1);
  private volatile String name = "";

  TermSignal() {
    for (String signal : new String[] {"TERM", "INT"}) {
      Signal.handle(new Signal(signal), s -> {
        name = "SIG" + s.getName();
        received.countDown();
      });
    }
  }

  /** Blocks until a signal came; returns its name (SIGTERM or SIGINT). */
  String await() throws InterruptedException {
    received.await();
    return name;
  }
}
