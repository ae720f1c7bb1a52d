package io.brook.broker.forward;

import io.brook.broker.config.ForwardRouteConfig;
import io.brook.broker.core.AnswerSize;
import io.brook.broker.core.BatchForm;
import io.brook.broker.core.FetchPosition;
import io.brook.broker.core.FetchQuery;
import io.brook.broker.core.FetchService;
import io.brook.broker.core.ForwardRouteStatus.State;
import io.brook.broker.core.LongPoll;
import io.brook.broker.core.PartitionRead;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.TopicPartition;
import io.brook.broker.records.LogRecord;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One route's loop, on its own thread: read what its source partitions hold past the cursor, send it
 * to Kafka, wait until Kafka acknowledged it, commit the cursor, again. When nothing is left it waits
 * for appends (a long poll, no thread spinning); when Kafka fails it backs off, drops the producer and
 * sends again from the last acknowledged record of each partition (at least once: what Kafka wrote
 * but did not acknowledge comes twice, with the same origin headers).
 */
final class RouteRunner implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(RouteRunner.class);
  /** Most records one round reads, sends and commits (bytes: {@link KafkaTarget.RoundLimits}). */
  static final int ROUND_RECORDS = 20_000;
  /** The least a partition may add to a round, so no partition starves behind a busy one. */
  private static final int PARTITION_MIN_BYTES = 256 << 10;
  /** How long an idle route waits for records before it looks for new topics and partitions. */
  private static final long IDLE_WAIT_MS = 5_000;
  private static final long DISCOVER_EVERY_MS = 5_000;
  /** How long pause waits for a round in flight to be acknowledged and committed. */
  private static final long PAUSE_WAIT_MS = 15_000;
  /** On a clean stop: how long records in flight may take to be acknowledged (and committed). */
  static final Duration CLOSE_GRACE = Duration.ofSeconds(5);

  final ForwardRouteConfig route;
  private final FetchService fetch;
  private final Sources sources;
  private final RouteCursor cursor;
  private final OriginRecords origins;
  private final Supplier<KafkaTarget> targets;
  private final KafkaTarget.RoundLimits limits;
  /** A route commits its offsets again this often, so offsets retention never expires its cursor. */
  private final long refreshEveryMs;
  /** The producer of the round in flight, so a shutdown can abort a flush that waits for a Kafka that is down. */
  private volatile KafkaTarget current;
  /** True from a round's first send to its commit. */
  private volatile boolean inRound;
  final RouteCounters counters = new RouteCounters();
  private final Semaphore wake = new Semaphore(0);
  /** The next offset to send, per source partition: what the cursor holds between rounds. */
  private final Map<TopicPartition, Long> positions = new java.util.concurrent.ConcurrentHashMap<>();
  /** Partition counts of the source topics, from the last discovery. */
  private final Map<String, Integer> sourcePartitions = new java.util.concurrent.ConcurrentHashMap<>();
  private volatile boolean closed;
  private volatile boolean reload = true;
  private volatile State state = State.STARTING;
  private int rotation;

  /** The source partitions a route reads: what the core lists now. */
  interface Sources {
    /** Each source topic of the route with its partition count and each partition's log start offset. */
    Map<String, long[]> logStarts(ForwardRouteConfig route);
  }

  RouteRunner(ForwardRouteConfig route, FetchService fetch, Sources sources, RouteCursor cursor,
      OriginRecords origins, Supplier<KafkaTarget> targets, long refreshEveryMs) {
    this.route = route;
    this.limits = KafkaTarget.roundLimits(route);
    this.refreshEveryMs = refreshEveryMs;
    this.fetch = fetch;
    this.sources = sources;
    this.cursor = cursor;
    this.origins = origins;
    this.targets = targets;
  }

  /** PAUSED as soon as the pause is marked and no round is in flight, whatever the loop last noted. */
  State state() {
    if (closed) {
      return State.STOPPED;
    }
    if (cursor.paused()) {
      return inRound ? State.RUNNING : State.PAUSED;
    }
    return state;
  }

  Map<TopicPartition, Long> positions() {
    return new HashMap<>(positions);
  }

  /** The next offset to send of one partition, or null before the route found it. */
  Long position(TopicPartition tp) {
    return positions.get(tp);
  }

  /**
   * Pauses or resumes durably, then wakes the loop (a resume reads the cursor again: it may have been
   * reset). A pause waits (up to 15 s) for the round in flight to be acknowledged and committed, so a
   * reset made after it returns is not overwritten; the state is PAUSED once it was.
   */
  boolean setPaused(boolean pause) throws InterruptedException {
    boolean durable = pause ? cursor.mark(true) : cursor.resume();
    reload = !pause;
    wake.release();
    if (pause) {
      synchronized (this) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PAUSE_WAIT_MS);
        while (inRound && System.nanoTime() < deadline) {
          wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        }
      }
    }
    return durable;
  }

  private synchronized void round(boolean on) {
    inRound = on;
    if (!on) {
      notifyAll();
    }
  }

  void close() {
    closed = true;
    wake.release();
  }

  /** Drops the producer of the round in flight at once: its flush ends, nothing more is committed. */
  void abort() {
    KafkaTarget t = current;
    if (t != null) {
      t.close(Duration.ZERO);
    }
  }

  @Override
  public void run() {
    Backoff backoff = new Backoff(route.backoffMaxMs());
    KafkaTarget target = null;
    long lastDiscovery = 0;
    long lastRefresh = System.currentTimeMillis();
    int failures = 0;
    try {
      while (!closed) {
        if (System.currentTimeMillis() - lastRefresh >= refreshEveryMs) {
          lastRefresh = System.currentTimeMillis(); // paused or backing off too: a week-long outage keeps its cursor
          try {
            cursor.refresh();
          } catch (RuntimeException e) {
            log.warn("Forward route {}: committing its cursor again failed: {}", route.name(), ErrorKinds.describe(e));
          }
        }
        long now = System.currentTimeMillis();
        try {
          if (reload) {
            positions.clear();
            cursor.load();
            reload = false;
            lastDiscovery = 0;
          }
          if (now - lastDiscovery >= DISCOVER_EVERY_MS) { // paused too: the status shows its cursors
            discover();
            lastDiscovery = now;
          }
        } catch (RuntimeException e) {
          brookFailed(e, backoff);
          continue;
        }
        if (cursor.paused()) { // state() says PAUSED from the mark
          target = drop(target, CLOSE_GRACE);
          current = null;
          wake.tryAcquire(IDLE_WAIT_MS, TimeUnit.MILLISECONDS);
          continue;
        }
        List<PartitionRead> round;
        try {
          round = read();
        } catch (RuntimeException e) {
          brookFailed(e, backoff);
          continue;
        }
        if (round.isEmpty()) {
          if (state != State.BACKING_OFF) {
            state = State.RUNNING;
          }
          idle();
          continue;
        }
        String failure;
        round(true);
        try {
          if (target == null) {
            target = targets.get();
            current = target;
          }
          failure = send(target, round);
        } catch (InterruptedException | org.apache.kafka.common.errors.InterruptException e) {
          throw e instanceof InterruptedException ie ? ie : new InterruptedException(e.getMessage());
        } catch (Exception e) { // a producer that cannot be made, an admin call that failed, a commit
          failure = noteFailure(e);
        } finally {
          round(false);
        }
        if (failure == null) {
          if (failures > 0) {
            log.info("Forward route {}: Kafka acknowledges again after {} failed attempt(s)", route.name(), failures);
          }
          failures = 0;
          backoff.reset();
          state = State.RUNNING;
          continue;
        }
        failures++;
        state = State.BACKING_OFF;
        target = drop(target, Duration.ZERO);
        current = null;
        long wait = backoff.next();
        log.warn("Forward route {}: {}; sending again from the last acknowledged records in {} ms", route.name(),
            failure, wait);
        wake.tryAcquire(wait, TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      state = State.STOPPED;
      log.error("Forward route {} stopped: {}", route.name(), ErrorKinds.describe(e), e);
    } finally {
      // Interrupted by Forwarder.close (a flush waiting for a Kafka that is down): the producer is closed
      // at once and with the flag clear, else KafkaProducer.close logs its interrupted join at ERROR with a
      // stack trace on every shutdown during an outage.
      boolean interrupted = Thread.interrupted();
      drop(target, interrupted ? Duration.ZERO : CLOSE_GRACE);
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Finds the source partitions (new topics of a prefix route, added partitions) and starts new ones at the cursor or the log start. */
  private void discover() {
    Map<String, long[]> now = sources.logStarts(route);
    Map<TopicPartition, Long> committed = cursor.committed();
    positions.keySet().removeIf(tp -> {
      long[] starts = now.get(tp.topic());
      return starts == null || tp.partition() >= starts.length; // topic deleted
    });
    sourcePartitions.clear();
    Map<TopicPartition, Long> firstSeen = new HashMap<>();
    now.forEach((topic, starts) -> {
      sourcePartitions.put(topic, starts.length);
      for (int p = 0; p < starts.length; p++) {
        TopicPartition tp = new TopicPartition(topic, p);
        if (!positions.containsKey(tp)) {
          Long at = committed.get(tp);
          if (at == null) {
            at = starts[p];
            firstSeen.put(tp, at);
          }
          positions.put(tp, at);
        }
      }
    });
    // The cursor holds a partition from the first sight: what retention deletes after it is counted,
    // after a restart too.
    cursor.commit(firstSeen);
  }

  /**
   * One round's reads: records past each position, the partitions taking turns at the front, each read
   * alone within its share of the round's bytes (at most one producer batch) until the round is full. A
   * position below the log start (retention deleted records not yet forwarded) is counted, logged and
   * moved; one past the end (the topic was deleted and made again) starts over at the log start.
   *
   * @throws BrokerException a read that failed on Brook's side (the route backs off)
   */
  private List<PartitionRead> read() {
    List<TopicPartition> order = new ArrayList<>(positions.keySet());
    if (order.isEmpty()) {
      return List.of();
    }
    order.sort(java.util.Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
    java.util.Collections.rotate(order, -Math.floorMod(rotation++, order.size()));
    int perPartition = Math.min(limits.partitionBytes(),
        Math.max(PARTITION_MIN_BYTES, limits.roundBytes() / order.size()));
    List<PartitionRead> round = new ArrayList<>();
    Map<TopicPartition, Long> moved = new HashMap<>();
    BrokerException failed = null;
    long bytes = 0;
    int records = 0;
    for (TopicPartition tp : order) {
      if (bytes >= limits.roundBytes() || records >= ROUND_RECORDS) {
        break; // the others lead the next rounds
      }
      long position = positions.get(tp);
      PartitionRead r = fetch.read(new FetchQuery(List.of(new FetchPosition(tp.topic(), tp.partition(), position)),
          ROUND_RECORDS - records, perPartition, BatchForm.RECORDS, 0), AnswerSize.unframed(perPartition)).get(0);
      if (r.error() == BrokerError.OFFSET_OUT_OF_RANGE && position < r.logStartOffset()) {
        long lost = r.logStartOffset() - position;
        counters.dropped(lost);
        log.warn("Forward route {}: retention deleted {} record(s) of {}-{} before they were forwarded "
            + "(offsets {} to {}); going on from {}", route.name(), lost, r.topic(), r.partition(), position,
            r.logStartOffset() - 1, r.logStartOffset());
        moved.put(tp, r.logStartOffset());
      } else if (r.error() == BrokerError.OFFSET_OUT_OF_RANGE && position > r.endOffset()) {
        log.warn("Forward route {}: {}-{} ends at {}, before the cursor {} (the topic was made again): forwarding "
            + "it from its start {}", route.name(), r.topic(), r.partition(), r.endOffset(), position,
            r.logStartOffset());
        moved.put(tp, r.logStartOffset());
      } else if (r.error() == BrokerError.UNKNOWN_TOPIC || r.error() == BrokerError.UNKNOWN_PARTITION) {
        positions.remove(tp); // deleted since the discovery
      } else if (r.error() != null) {
        failed = new BrokerException(r.error(), r.topic() + "-" + r.partition() + ": " + r.errorMessage());
      } else if (!r.records().isEmpty()) {
        round.add(r);
        records += r.records().size();
        for (LogRecord rec : r.records()) {
          bytes += rec.payloadSize();
        }
      }
    }
    if (!moved.isEmpty()) {
      positions.putAll(moved);
      cursor.commit(moved);
    }
    if (round.isEmpty() && failed != null) {
      throw failed; // nothing else to do: back off instead of waiting on a partition that has data
    }
    return round;
  }

  /**
   * Sends a round and waits for Kafka's answers; commits, per partition, the records up to the first
   * that failed. Null when all went through, else what failed (one line).
   */
  private String send(KafkaTarget target, List<PartitionRead> round) throws Exception {
    // Every target's partition count first (an admin call may fail): then a round is sent whole or not at all.
    Map<String, Integer> targetPartitions = new HashMap<>();
    for (PartitionRead r : round) {
      String targetTopic = route.targetOf(r.topic());
      if (!targetPartitions.containsKey(targetTopic)) {
        targetPartitions.put(targetTopic, target.partitionCount(targetTopic, sourceCount(r)));
      }
    }
    List<Progress> sent = new ArrayList<>(round.size());
    for (PartitionRead r : round) {
      String targetTopic = route.targetOf(r.topic());
      Integer partition = targetPartitions.get(targetTopic) >= sourceCount(r) ? r.partition() : null;
      Progress progress = new Progress(new TopicPartition(r.topic(), r.partition()), r.records().get(0).offset());
      sent.add(progress);
      byte[] topicUtf8 = r.topic().getBytes(StandardCharsets.UTF_8);
      long batchBytes = 0;
      for (LogRecord record : r.records()) {
        long offset = record.offset();
        long size = OriginRecords.size(record);
        batchBytes += OriginRecords.encodedSizeBound(size, topicUtf8.length, record.headers().size());
        if (batchBytes > limits.partitionBytes() && offset > progress.first) {
          break; // the rest next round: one batch per partition, so a failed one leaves nothing after it written
        }
        try {
          target.send(origins.toKafka(targetTopic, partition, topicUtf8, r.partition(), record), (meta, e) -> {
            if (e == null) {
              counters.forwarded(size);
              progress.acked(offset);
            } else {
              progress.failed(offset, e);
            }
          });
        } catch (org.apache.kafka.common.errors.InterruptException e) {
          throw e;
        } catch (RuntimeException e) { // refused before sending (the producer's own checks)
          progress.failed(offset, e);
          break;
        }
        progress.next = offset + 1;
        if (progress.failedAt != Long.MAX_VALUE) {
          break; // refused at once (too large, no metadata): nothing after it may be written before it
        }
      }
    }
    target.flush();
    Map<TopicPartition, Long> acked = new HashMap<>();
    Throwable firstFailure = null;
    for (Progress p : sent) {
      long upTo = Math.min(p.next, p.failedAt);
      if (upTo > p.first) {
        acked.put(p.tp, upTo);
      }
      if (p.failure != null && firstFailure == null) {
        firstFailure = p.failure;
      }
      if (p.highestAcked > p.failedAt) { // the producer split the round's batch and a later part got through
        counters.failed(ErrorKinds.REORDERED, "records of " + p.tp.topic() + "-" + p.tp.partition() + " after "
            + p.failedAt + " were written although " + p.failedAt + " failed");
        log.warn("Forward route {}: Kafka wrote records of {}-{} up to {} although {} failed: they will be there "
            + "again, after it, out of order", route.name(), p.tp.topic(), p.tp.partition(), p.highestAcked,
            p.failedAt);
      }
    }
    positions.putAll(acked);
    cursor.commit(acked);
    return firstFailure == null ? null : noteFailure(firstFailure);
  }

  /** The broker's own side failed (a storage error, a group that cannot be read): try again later. */
  private void brookFailed(RuntimeException e, Backoff backoff) throws InterruptedException {
    String failure = "reading the source or the cursor on Brook failed (" + ErrorKinds.describe(e) + ")";
    counters.failed(ErrorKinds.OTHER, failure);
    state = State.BACKING_OFF;
    long wait = backoff.next();
    log.warn("Forward route {}: {}; trying again in {} ms", route.name(), failure, wait);
    wake.tryAcquire(wait, TimeUnit.MILLISECONDS);
  }

  private int sourceCount(PartitionRead r) {
    return sourcePartitions.getOrDefault(r.topic(), r.partition() + 1);
  }

  /** Counts a failed attempt by kind and keeps its message for the status. */
  private String noteFailure(Throwable e) {
    String kind = ErrorKinds.of(e);
    String message = ErrorKinds.describe(e);
    counters.failed(kind, message);
    return "Kafka failed (" + kind + ": " + message + ")";
  }

  /** Waits for appends past every position (or new partitions), without a thread spinning. */
  private void idle() throws InterruptedException {
    wake.drainPermits();
    List<FetchPosition> at = new ArrayList<>();
    positions.forEach((tp, offset) -> at.add(new FetchPosition(tp.topic(), tp.partition(), offset)));
    LongPoll poll = null;
    if (!at.isEmpty()) {
      FetchQuery query = new FetchQuery(at, 1, 1, BatchForm.RECORDS, IDLE_WAIT_MS);
      List<PartitionRead> empty = new ArrayList<>();
      for (FetchPosition p : at) {
        empty.add(new PartitionRead(p.topic(), p.partition(), List.of(), List.of(), p.offset(), 0, 0, null, null));
      }
      poll = fetch.longPoll(query, empty, wake::release);
    }
    if (poll != null) {
      poll.start();
    }
    try {
      wake.tryAcquire(IDLE_WAIT_MS, TimeUnit.MILLISECONDS);
    } finally {
      if (poll != null) {
        poll.cancel();
      }
    }
  }

  private KafkaTarget drop(KafkaTarget target, Duration grace) {
    if (target != null) {
      try {
        target.close(grace);
      } catch (RuntimeException e) {
        log.debug("Forward route {}: closing its producer: {}", route.name(), e.toString());
      }
    }
    return null;
  }

  /** What one partition of a round sent, and the first offset Kafka refused. */
  private static final class Progress {
    final TopicPartition tp;
    final long first;
    long next;
    volatile long failedAt = Long.MAX_VALUE;
    volatile long highestAcked = -1;
    volatile Throwable failure;

    Progress(TopicPartition tp, long first) {
      this.tp = tp;
      this.first = first;
      this.next = first;
    }

    synchronized void acked(long offset) {
      highestAcked = Math.max(highestAcked, offset);
    }

    synchronized void failed(long offset, Throwable e) {
      if (offset < failedAt) {
        failedAt = offset;
        failure = e;
      }
    }
  }
}
