package io.brook.broker.disk;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import java.io.IOException;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps Brook's memory-mapped writes away from a full filesystem, where touching an unbacked page
 * kills the JVM with SIGBUS. A timer reads the free space of the data directory's filesystem every
 * {@code disk.check.interval.ms}; between two reads, what produce appended is subtracted, so a fast
 * producer cannot outrun the timer. Writers ask {@link #check} (one volatile read) before writing:
 *
 * <ul>
 *   <li>free ≥ produce threshold: {@link DiskState#OK}, everything goes on;
 *   <li>under it: {@link DiskState#PRODUCE_REFUSED}: produce and new partitions are refused with
 *       NOT_ENOUGH_DISK; commits, acks, dead letters and snapshots use the headroom;
 *   <li>under the headroom: {@link DiskState#FULL}: those are refused too; reads go on.
 * </ul>
 *
 * A refused state ends by itself once free space is back above its limit plus 1/16 (so it does
 * not flap); each change of state is logged once. Health is not touched: a broker with a full disk
 * must stay in its Service so consumers can drain it.
 */
public final class DiskGuard implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DiskGuard.class);

  /** Told of each change of state; the broker's logs it, tests record it. */
  @FunctionalInterface
  public interface Transitions {
    void changed(DiskState from, DiskState to, String message);

    /** One log line per change: a warning into a refused state, info out of one. */
    Transitions LOG = (from, to, message) -> {
      if (to.ordinal() > from.ordinal()) {
        log.warn(message);
      } else {
        log.info(message);
      }
    };
  }

  private final FreeSpace space;
  private final DiskLimits limits;
  private final IntSupplier activeWriters;
  private final Transitions transitions;
  private final String where;

  private volatile DiskState state = DiskState.OK;
  private volatile long polledFree;
  private final AtomicLong writtenSincePoll = new AtomicLong();
  private volatile ProduceThreshold produceThreshold;
  private volatile int writers;
  private final Map<DiskWrite, LongAdder> refused = new EnumMap<>(DiskWrite.class);
  private final AtomicLong transitionCount = new AtomicLong();
  private long stateSinceNanos = System.nanoTime();
  private long refusingSinceNanos;
  private boolean readFailing;
  private ScheduledExecutorService timer;

  /**
   * Reads free space once, so the state is known before the first write. That reading counts one
   * writer, the least, without asking {@code activeWriters}: a guard is built before the logs it
   * counts are open (the broker recovers them after), so they are counted from the first poll on.
   *
   * @param where the data directory, for log lines
   * @param activeWriters logs being appended now (partitions written lately, group journals)
   */
  public DiskGuard(FreeSpace space, DiskLimits limits, IntSupplier activeWriters, Transitions transitions,
      String where) {
    this.space = space;
    this.limits = limits;
    this.activeWriters = activeWriters;
    this.transitions = transitions;
    this.where = where;
    for (DiskWrite w : DiskWrite.values()) {
      refused.put(w, new LongAdder());
    }
    produceThreshold = ProduceThreshold.of(limits, 1);
    read(() -> 1);
  }

  /** Polls on a thread of its own: a busy broker timer must not delay it. */
  public synchronized void start() {
    if (timer != null) {
      return;
    }
    timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "brook-disk");
      t.setDaemon(true);
      return t;
    });
    timer.scheduleWithFixedDelay(this::poll, limits.checkIntervalMs(), limits.checkIntervalMs(),
        TimeUnit.MILLISECONDS);
  }

  /**
   * Refuses a write the state does not allow: NOT_ENOUGH_DISK (gRPC RESOURCE_EXHAUSTED) with a
   * message naming free space, the limit and its config key. Counted by kind.
   */
  public void check(DiskWrite w) {
    DiskState s = state;
    if (s.allows(w)) {
      return;
    }
    refused.get(w).increment();
    throw new BrokerException(BrokerError.NOT_ENOUGH_DISK, refusal(w, s));
  }

  /** For background writes that wait for space instead of failing a caller (no count, no exception). */
  public boolean metadataAllowed() {
    return state != DiskState.FULL;
  }

  /** Notes bytes just appended, so the estimate of free space falls before the next read. */
  public void wrote(long bytes) {
    long estimate = polledFree - writtenSincePoll.addAndGet(bytes);
    DiskState s = state;
    if ((s == DiskState.OK && estimate < produceThreshold.bytes())
        || (s == DiskState.PRODUCE_REFUSED && estimate < limits.headroomBytes())) {
      evaluate(estimate); // a change of state now, not at the next read
    }
  }

  /** Reads free space and updates the state: the timer calls it; tests call it directly. */
  public void poll() {
    read(activeWriters);
  }

  private void read(IntSupplier census) {
    long counted = writtenSincePoll.get();
    long free;
    try {
      free = space.usableBytes();
    } catch (IOException | RuntimeException e) {
      readFailed(e);
      return;
    }
    polledFree = free; // before the subtraction: meanwhile the estimate is low (safe), never high
    writtenSincePoll.addAndGet(-counted);
    int n;
    try {
      n = Math.max(1, census.getAsInt());
    } catch (RuntimeException e) { // a census racing a topic deletion: keep the last count
      n = writers;
    }
    evaluate(free - writtenSincePoll.get(), n);
  }

  private synchronized void readFailed(Exception e) {
    if (!readFailing) { // once, not at every interval; the state stays as it was
      readFailing = true;
      log.warn("Cannot read the free space of {}: {}; keeping the last known state ({})", where, e.toString(),
          state);
    }
  }

  private synchronized void evaluate(long free) {
    evaluate(free, writers);
  }

  private synchronized void evaluate(long free, int activeWriters) {
    if (readFailing) {
      readFailing = false;
      log.info("Free space of {} readable again", where);
    }
    writers = activeWriters;
    ProduceThreshold computed = ProduceThreshold.of(limits, activeWriters);
    // While produce is refused no partition appends, so the count of active writers decays; the
    // threshold must not fall with it, or produce would resume into the space it was refused for.
    ProduceThreshold threshold = state == DiskState.OK ? computed : computed.atLeast(produceThreshold);
    produceThreshold = threshold;
    long limit = threshold.bytes();
    long headroom = limits.headroomBytes();
    DiskState next = switch (state) {
      case OK -> free < headroom ? DiskState.FULL : free < limit ? DiskState.PRODUCE_REFUSED : DiskState.OK;
      case PRODUCE_REFUSED -> free < headroom ? DiskState.FULL
          : free >= DiskLimits.resumeAt(limit) ? DiskState.OK : DiskState.PRODUCE_REFUSED;
      case FULL -> free >= DiskLimits.resumeAt(limit) ? DiskState.OK
          : free >= DiskLimits.resumeAt(headroom) ? DiskState.PRODUCE_REFUSED : DiskState.FULL;
    };
    if (next != state) {
      DiskState from = state;
      long now = System.nanoTime();
      if (from == DiskState.OK) {
        refusingSinceNanos = now;
      }
      long since = next == DiskState.OK ? refusingSinceNanos : stateSinceNanos;
      long lastedMs = TimeUnit.NANOSECONDS.toMillis(now - since);
      state = next;
      stateSinceNanos = now;
      transitionCount.incrementAndGet();
      transitions.changed(from, next, describe(from, next, free, threshold, lastedMs));
    }
  }

  private String describe(DiskState from, DiskState to, long free, ProduceThreshold threshold, long lastedMs) {
    String freeText = ByteSize.human(free) + " free on the filesystem of " + where;
    String limitsText = "produce threshold " + explained(threshold);
    switch (to) {
      case PRODUCE_REFUSED:
        if (from == DiskState.OK) {
          return "Disk space low: " + freeText + ", under the " + limitsText + ". Produce and new partitions are "
              + "refused (RESOURCE_EXHAUSTED, NOT_ENOUGH_DISK) until "
              + ByteSize.human(DiskLimits.resumeAt(threshold.bytes())) + " are free; fetches, commits, acks and dead "
              + "letters go on in the headroom. Free space (lower retention, delete topics, grow the volume) and "
              + "produce resumes by itself";
        }
        return "Disk space back above the headroom: " + freeText + ". Commits, acks and dead letters go on again; "
            + "produce stays refused under the " + limitsText + " (metadata writes were refused for " + lastedMs
            + " ms)";
      case FULL:
        return "Disk almost full: " + freeText + ", under disk.headroom.bytes " + ByteSize.human(
            limits.headroomBytes()) + ". Produce, commits, acks, dead letters and snapshots are refused "
            + "(RESOURCE_EXHAUSTED) until " + ByteSize.human(DiskLimits.resumeAt(limits.headroomBytes()))
            + " are free; fetches go on. Free space now";
      default:
        return "Disk space back: " + freeText + ", above the " + limitsText + ". Produce accepted again after "
            + lastedMs + " ms refused; " + refusedTotal() + " writes refused in all since start";
    }
  }

  private String refusal(DiskWrite w, DiskState s) {
    long free = Math.max(0, polledFree - writtenSincePoll.get());
    if (s == DiskState.FULL && w.metadata()) {
      return "not enough disk: " + ByteSize.of(free) + " free on the broker's data filesystem, under the "
          + "headroom kept for commits, acks and dead letters (disk.headroom.bytes = "
          + ByteSize.of(limits.headroomBytes()) + "); retry once space is freed";
    }
    ProduceThreshold threshold = produceThreshold;
    return "not enough disk: " + ByteSize.of(free) + " free on the broker's data filesystem, under the produce "
        + "threshold of " + threshold.bytes() + " bytes: " + threshold.explained() + "; retry once space is freed";
  }

  /**
   * The threshold, its formula, and when it is one kept from more writers than are active now
   * (produce refused), the count now.
   */
  private String explained(ProduceThreshold threshold) {
    int now = Math.max(1, writers);
    return threshold.explained() + (threshold.writers() <= now ? ""
        : ", kept while produce was refused (" + now + " active writer(s) now)");
  }

  private long refusedTotal() {
    return refused.values().stream().mapToLong(LongAdder::sum).sum();
  }

  /** One line for the start log: where free space stands and what the limits are. */
  public String summary() {
    return where + ": " + ByteSize.human(Math.max(0, polledFree)) + " free, state " + state + "; produce refused under "
        + explained(produceThreshold) + ", commits/acks/dead letters under " + ByteSize.human(limits.headroomBytes())
        + "; read every " + limits.checkIntervalMs() + " ms";
  }

  public DiskState state() {
    return state;
  }

  /** A consistent-enough view for stats and metrics (each field is read once). */
  public DiskStats stats() {
    Map<String, Long> counts = new LinkedHashMap<>();
    refused.forEach((w, n) -> counts.put(w.label(), n.sum()));
    return new DiskStats(state, polledFree - writtenSincePoll.get(), produceThreshold.bytes(), limits.headroomBytes(),
        writers, counts, transitionCount.get());
  }

  @Override
  public synchronized void close() {
    if (timer != null) {
      timer.shutdownNow();
      timer = null;
    }
  }
}
