package io.brook.broker.server;

import io.brook.broker.topics.Retention;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retention passes every retention.check.interval.ms (the first at start), on a thread of their
 * own: deleting files must not delay group timeouts on the broker's timer (D18).
 */
final class RetentionSchedule implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RetentionSchedule.class);

  private final Retention retention;
  private final ScheduledExecutorService thread;
  private final long intervalMs;

  RetentionSchedule(BrokerContext ctx) {
    retention = ctx.retention;
    thread = Executors.newSingleThreadScheduledExecutor(BrokerContext.threads("retention"));
    intervalMs = ctx.retentionIntervalMs;
  }

  void start() {
    thread.scheduleWithFixedDelay(this::pass, 0, intervalMs, TimeUnit.MILLISECONDS);
  }

  private void pass() {
    try {
      retention.run();
    } catch (RuntimeException e) { // a scheduled task that throws is never run again
      log.warn("Retention pass failed: {}", e.toString());
    }
  }

  /** No further passes; a pass in flight finishes (within 10 s) so that it is done before the logs close. */
  @Override
  public void close() {
    thread.shutdownNow();
    try {
      thread.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
