package io.brook.broker.api;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The calls that would outlive a shutdown's grace on their own: produce and tail streams, and fetches
 * waiting for records. On SIGTERM the broker drains them: a produce stream answers what it has read
 * and then ends, a tail stream ends at once, a waiting fetch answers with what is there. Streams end
 * UNAVAILABLE, which the clients treat as "reconnect", so they resume on the restarted broker.
 * Each action runs at most once: whoever removes it from the set runs it.
 */
public final class Draining implements io.brook.broker.core.DrainRegistry {
  private final Set<Runnable> open = ConcurrentHashMap.newKeySet();
  private volatile boolean draining;

  /** Registers a call's drain action; when the broker already drains, runs it now. */
  @Override
  public void add(Runnable drain) {
    open.add(drain);
    if (draining && open.remove(drain)) {
      run(drain);
    }
  }

  @Override
  public void remove(Runnable drain) {
    open.remove(drain);
  }

  /** Streams open and fetches waiting now: what a shutdown would have to end. */
  public int open() {
    return open.size();
  }

  boolean draining() {
    return draining;
  }

  /** Tells every open stream and waiting fetch to finish now. */
  public void drainAll() {
    draining = true;
    for (Runnable r : open) {
      if (open.remove(r)) {
        run(r);
      }
    }
  }

  /** One call that fails to end must not keep the others (or the rest of the shutdown) from it. */
  private static void run(Runnable drain) {
    try {
      drain.run();
    } catch (RuntimeException e) {
      org.slf4j.LoggerFactory.getLogger(Draining.class).warn("Ending a call for the shutdown failed: {}",
          e.toString());
    }
  }

  static StatusRuntimeException shuttingDown() {
    return Status.UNAVAILABLE.withDescription("the broker is shutting down: reconnect and resume").asRuntimeException();
  }
}
