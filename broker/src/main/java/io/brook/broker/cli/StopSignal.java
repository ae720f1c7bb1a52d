package io.brook.broker.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Ctrl-C (SIGINT) or SIGTERM for a command that runs until stopped (consume, produce): the first
 * raises {@link #stopping()} and runs the wake-up given; the command then finishes its work on its
 * own thread (commits and leaves, sends its last settles, flushes) and returns its exit code, 0 for a
 * clean stop. The signals are handled (as {@link TermSignal} does for the broker) rather than left
 * to the JVM, whose shutdown hooks cannot change the exit status: it ends the process with 128 + the
 * signal (143, 130) however cleanly the hooks finished.
 *
 * <p>A stop that is not done within {@code graceSeconds}, or a second signal, ends the process at
 * once with 128 + the signal, saying so on stderr. {@link #close} gives the signals back to the JVM.
 */
final class StopSignal implements AutoCloseable {
  private static final String[] SIGNALS = {"TERM", "INT"};

  private final Runnable wake;
  private final long graceSeconds;
  private final Map<Signal, SignalHandler> previous = new LinkedHashMap<>();
  private final AtomicReference<Signal> first = new AtomicReference<>();
  private final CountDownLatch done = new CountDownLatch(1);

  StopSignal(Runnable wake, long graceSeconds) {
    this.wake = wake;
    this.graceSeconds = graceSeconds;
    for (String name : SIGNALS) {
      Signal signal = new Signal(name);
      try {
        previous.put(signal, Signal.handle(signal, this::received));
      } catch (IllegalArgumentException reserved) {
        // -Xrs: the JVM leaves these signals to the OS, which ends the process on them (no clean stop)
      }
    }
  }

  /** A signal came: the command should finish and return. */
  boolean stopping() {
    return first.get() != null;
  }

  /** The signal that asked for the stop ("SIGTERM", "SIGINT"), or null. */
  String signalName() {
    Signal s = first.get();
    return s == null ? null : "SIG" + s.getName();
  }

  /** On a thread the JVM starts for each signal. */
  private void received(Signal signal) {
    if (!first.compareAndSet(null, signal)) {
      exitNow("a second SIG" + signal.getName(), signal);
      return;
    }
    wake.run();
    Thread watchdog = new Thread(() -> {
      try {
        if (!done.await(graceSeconds, TimeUnit.SECONDS)) {
          exitNow("not done " + graceSeconds + " s after SIG" + signal.getName(), signal);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "brook-stop");
    watchdog.setDaemon(true);
    watchdog.start();
  }

  private void exitNow(String why, Signal signal) {
    if (done.getCount() == 0) {
      return; // finished meanwhile: its own exit code stands
    }
    System.err.println("brook: " + why + ": stopping at once, without finishing cleanly");
    System.exit(128 + signal.getNumber());
  }

  /** The command is done: the signals are the JVM's again. */
  @Override
  public void close() {
    done.countDown();
    previous.forEach(Signal::handle);
  }
}
