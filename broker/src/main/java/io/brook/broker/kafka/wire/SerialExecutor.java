package io.brook.broker.kafka.wire;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection's tasks on the shared worker pool: one at a time, in the order given, so that a
 * connection's requests reach the core in request order (a pipelined idempotent producer's batches
 * are appended in sequence order) while other connections' tasks run beside them.
 */
final class SerialExecutor implements Executor {
  private static final Logger log = LoggerFactory.getLogger(SerialExecutor.class);
  /** Tasks run per turn on a pool thread before the turn goes back to the pool's queue (fairness). */
  private static final int TURN = 64;

  private final Executor pool;
  private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  /** Tasks given and not yet finished; the one that makes it 1 schedules a turn. */
  private final AtomicInteger unfinished = new AtomicInteger();

  SerialExecutor(Executor pool) {
    this.pool = pool;
  }

  /** @throws RejectedExecutionException when the pool stopped (the broker stops) */
  @Override
  public void execute(Runnable task) {
    tasks.add(task);
    if (unfinished.getAndIncrement() == 0) {
      try {
        pool.execute(this::turn);
      } catch (RejectedExecutionException e) {
        tasks.clear();
        unfinished.set(0);
        throw e;
      }
    }
  }

  /** Whether every task given has finished: a task run elsewhere now still runs after all of them. */
  boolean idle() {
    return unfinished.get() == 0;
  }

  private void turn() {
    for (int ran = 1; ; ran++) {
      Runnable task = tasks.poll(); // given before it was counted, so there is one
      try {
        task.run();
      } catch (Throwable e) { // a task answers its own failures; one that throws must not stop the rest (an
        // Error too: left uncounted, it would stop this connection's tasks for good)
        log.warn("A Kafka request task failed: {}", e.toString());
      }
      if (unfinished.decrementAndGet() == 0) {
        return;
      }
      if (ran == TURN) {
        try {
          pool.execute(this::turn);
        } catch (RejectedExecutionException e) { // the broker stops: what is left is dropped with its connection
          tasks.clear();
          unfinished.set(0);
        }
        return;
      }
    }
  }
}
