package io.brook.broker.durability;

import io.brook.broker.errors.BrokerException;
import io.brook.broker.topics.Partition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit for SYNCED produces: one thread (one per broker, that is per disk) takes every
 * request waiting for a force, forces each partition they touched once, and completes them all.
 * While it forces, new requests queue up and share the next force. WRITTEN produces never come here.
 *
 * <p>With grouping off (sync.group.commit=false, the benchmark's baseline) every request gets a
 * force of its own.
 */
public final class Flusher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Flusher.class);

  private record Waiting(Partition partition, CompletableFuture<Void> done) {}

  private final LinkedBlockingQueue<Waiting> queue = new LinkedBlockingQueue<>();
  private final boolean grouping;
  private final java.util.concurrent.Executor completions;
  private final Thread thread;
  private volatile boolean running = true;

  /**
   * @param completions runs the answers' completions (gRPC writes), so the flusher goes back to
   *     forcing at once instead of sending answers itself
   */
  public Flusher(boolean grouping, java.util.concurrent.Executor completions) {
    this.grouping = grouping;
    this.completions = completions;
    this.thread = new Thread(this::run, "brook-flusher");
    thread.setDaemon(true);
    thread.start();
  }

  /** Completes once everything appended to {@code p} before this call is on the device. */
  public CompletableFuture<Void> force(Partition p) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    if (!running) {
      done.completeExceptionally(new IllegalStateException("the broker is stopping"));
      return done;
    }
    queue.add(new Waiting(p, done));
    return done;
  }

  private void run() {
    List<Waiting> round = new ArrayList<>();
    while (running) {
      try {
        round.add(queue.take());
      } catch (InterruptedException e) {
        break;
      }
      if (grouping) {
        queue.drainTo(round);
      }
      Map<Partition, List<CompletableFuture<Void>>> byPartition = new LinkedHashMap<>();
      for (Waiting w : round) {
        byPartition.computeIfAbsent(w.partition(), p -> new ArrayList<>()).add(w.done());
      }
      round.clear();
      byPartition.forEach(this::forceOnce);
    }
    for (Waiting w; (w = queue.poll()) != null; ) {
      w.done().completeExceptionally(new IllegalStateException("the broker is stopping"));
    }
  }

  private void forceOnce(Partition p, List<CompletableFuture<Void>> waiting) {
    Throwable failure = null;
    try {
      p.flush();
    } catch (BrokerException e) {
      failure = e;
    } catch (RuntimeException e) {
      log.warn("Forcing {} failed", p.name(), e);
      failure = e;
    }
    Throwable outcome = failure;
    try {
      completions.execute(() -> complete(waiting, outcome));
    } catch (java.util.concurrent.RejectedExecutionException e) { // stopping: answer here
      complete(waiting, outcome);
    }
  }

  private static void complete(List<CompletableFuture<Void>> waiting, Throwable failure) {
    for (CompletableFuture<Void> f : waiting) {
      if (failure == null) {
        f.complete(null);
      } else {
        f.completeExceptionally(failure);
      }
    }
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
    try {
      thread.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
