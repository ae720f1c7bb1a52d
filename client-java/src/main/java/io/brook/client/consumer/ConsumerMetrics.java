package io.brook.client.consumer;

import com.google.protobuf.ByteString;
import io.brook.client.TopicPartition;
import io.brook.protocol.v1.PartitionRecords;
import io.brook.protocol.v1.Record;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * An offset consumer's counters since it was created, read live from any thread (the consumer
 * itself is single-threaded; these are not): every call answers the value now, so a metrics
 * registry can read them at each scrape ({@code BrookClientMetrics} binds them to Micrometer).
 * Counted per fetch answer, commit or join, never per record.
 */
public final class ConsumerMetrics {
  private static final Comparator<TopicPartition> ORDER =
      Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

  private final LongAdder recordsFetched = new LongAdder();
  private final LongAdder bytesFetched = new LongAdder();
  private final LongAdder fetches = new LongAdder();
  private final LongAdder rebalances = new LongAdder();
  private final LongAdder commits = new LongAdder();
  private final LongAdder commitFailures = new LongAdder();
  private final LongAdder commitNanos = new LongAdder();
  /** Written by the polling thread only; read by any. */
  private final Map<TopicPartition, AtomicLong> lag = new ConcurrentHashMap<>();
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

  /** Records the fetch answers held from the positions on (handed out now or by later polls). */
  public long recordsFetched() {
    return recordsFetched.sum();
  }

  /** Encoded bytes of the records in the fetch answers (the stored batch format). */
  public long bytesFetched() {
    return bytesFetched.sum();
  }

  /** Fetch answers received. */
  public long fetches() {
    return fetches.sum();
  }

  /** Joins of the group completed (the first assignment counts: each is a rebalance this member took part in). */
  public long rebalances() {
    return rebalances.sum();
  }

  /** Commit calls answered, sync (each attempt) and async: the samples of {@link #commitLatencyTotalNanos()}. */
  public long commits() {
    return commits.sum();
  }

  /** Of those, the ones that failed (refused, or the call failed). */
  public long commitFailures() {
    return commitFailures.sum();
  }

  /** The time from sending each commit to its answer, added up. */
  public long commitLatencyTotalNanos() {
    return commitNanos.sum();
  }

  /** The average commit latency in milliseconds, 0 before the first commit. */
  public double averageCommitLatencyMs() {
    long n = commits();
    return n == 0 ? 0 : (double) commitLatencyTotalNanos() / n / TimeUnit.MILLISECONDS.toNanos(1);
  }

  /**
   * Per assigned partition whose end a fetch answer told: its end offset minus the position, as of
   * the last poll. A partition is absent until a fetch of it answered, and once it is no longer assigned.
   */
  public Map<TopicPartition, Long> lag() {
    Map<TopicPartition, Long> out = new TreeMap<>(ORDER);
    lag.forEach((tp, n) -> out.put(tp, n.get()));
    return out;
  }

  /** This partition's lag as in {@link #lag()}, or -1 when it has none. */
  public long lag(TopicPartition tp) {
    AtomicLong n = lag.get(tp);
    return n == null ? -1 : n.get();
  }

  /** The largest lag of {@link #lag()}, 0 when it is empty (Kafka's records-lag-max). */
  public long maxLag() {
    long max = 0;
    for (AtomicLong n : lag.values()) {
      max = Math.max(max, n.get());
    }
    return max;
  }

  /**
   * Runs {@code r} on the polling thread whenever the set of partitions in {@link #lag()} changed:
   * for a metrics binder that keeps one meter per partition. It must be quick.
   */
  public void addListener(Runnable r) {
    listeners.add(r);
  }

  public void removeListener(Runnable r) {
    listeners.remove(r);
  }

  // --- recorded by the consumer

  void fetched(PartitionRecords pr, int records) {
    long bytes = 0;
    for (ByteString batch : pr.getBatchesList()) {
      bytes += batch.size();
    }
    for (Record r : pr.getRecordsList()) { // a broker without raw batches
      bytes += r.getSerializedSize();
    }
    recordsFetched.add(records);
    bytesFetched.add(bytes);
  }

  void fetchAnswered() {
    fetches.increment();
  }

  void rebalanced() {
    rebalances.increment();
  }

  void committed(long startNanos, boolean failed) {
    commitNanos.add(System.nanoTime() - startNanos);
    commits.increment();
    if (failed) {
      commitFailures.increment();
    }
  }

  /** On the polling thread, after a poll: the lag of each assigned partition whose end is known. */
  void updateLag(PartitionStates states) {
    boolean changed = lag.keySet().retainAll(states.assignedSet());
    for (TopicPartition tp : states.assignedSet()) {
      Long end = states.endOffset(tp);
      Long position = states.position(tp);
      if (end == null || position == null) {
        changed |= lag.remove(tp) != null;
        continue;
      }
      AtomicLong n = lag.get(tp);
      if (n == null) {
        lag.put(tp, n = new AtomicLong());
        changed = true;
      }
      n.set(Math.max(0, end - position));
    }
    if (changed) {
      listeners.forEach(Runnable::run);
    }
  }

  /** The consumer closed: it owns no partition. */
  void clearLag() {
    if (!lag.isEmpty()) {
      lag.clear();
      listeners.forEach(Runnable::run);
    }
  }
}
