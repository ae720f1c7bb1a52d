package io.brook.broker.cli;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Ctrl-C (SIGINT) or SIGTERM for a command that must finish cleanly: the shutdown hook raises
 * {@link #stopping()}, runs the wake-up given, and holds the JVM open (at most {@code graceSeconds})
 * until the command's {@link #close} says it committed and left.
 */
final class StopSignal implements AutoCloseable {
  private final CountDownLatch finished = new CountDownLatch(1);
  private final Thread hook;
  private volatile boolean stopping;

  StopSignal(Runnable wake, long graceSeconds) {
    hook = new Thread(() -> {
      stopping = true;
      wake.run();
      try {
        finished.await(graceSeconds, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "brook-stop");
    Runtime.getRuntime().addShutdownHook(hook);
  }

  boolean stopping() {
    return stopping;
  }

  /** The command is done: a shutdown in progress may go on. */
  @Override
  public void close() {
    finished.countDown();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook is running: it returns now that finished is counted down
    }
  }
}
