package io.brook.client.producer;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * A producer's counters since it was created, read live: every call answers the value now, so a
 * metrics registry can read them at each scrape ({@code BrookClientMetrics} binds them to
 * Micrometer). Counted per batch or request on the sender thread, never per record, so keeping them
 * costs the produce path nothing measurable. Thread-safe.
 */
public final class ProducerMetrics {
  private final LongAdder recordsSent = new LongAdder();
  private final LongAdder bytesSent = new LongAdder();
  private final LongAdder batchesSent = new LongAdder();
  private final LongAdder retries = new LongAdder();
  private final LongAdder requests = new LongAdder();
  private final LongAdder requestNanos = new LongAdder();
  private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();
  private final Semaphore buffer;
  private final long bufferTotal;
  private volatile int inFlight;
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

  ProducerMetrics(Semaphore buffer, long bufferTotal) {
    this.buffer = buffer;
    this.bufferTotal = bufferTotal;
  }

  /** Records the broker acknowledged as written. */
  public long recordsSent() {
    return recordsSent.sum();
  }

  /** Bytes of those records as sent: their Kafka batches (keys, values, headers and framing), after compression. */
  public long bytesSent() {
    return bytesSent.sum();
  }

  /** Batches the broker acknowledged; {@code bytesSent / batchesSent} is the average batch size. */
  public long batchesSent() {
    return batchesSent.sum();
  }

  /** The average size in bytes of the batches acknowledged so far, 0 before the first. */
  public double averageBatchBytes() {
    long batches = batchesSent();
    return batches == 0 ? 0 : (double) bytesSent() / batches;
  }

  /** Batches sent again: a retriable refusal, or the stream breaking while they were in flight. */
  public long retries() {
    return retries.sum();
  }

  /** Records that failed (their future completed exceptionally), by the exception's reason. */
  public Map<String, Long> errors() {
    Map<String, Long> out = new TreeMap<>();
    errors.forEach((reason, n) -> out.put(reason, n.sum()));
    return out;
  }

  /** Records failed by this reason so far (0 if none). */
  public long errors(String reason) {
    LongAdder n = errors.get(reason);
    return n == null ? 0 : n.sum();
  }

  /** Bytes of {@code bufferMemory} held by records not yet answered. */
  public long bufferUsedBytes() {
    return bufferTotal - buffer.availablePermits();
  }

  /** {@code bufferMemory}. */
  public long bufferTotalBytes() {
    return bufferTotal;
  }

  /** Produce requests sent and not yet answered. */
  public int requestsInFlight() {
    return inFlight;
  }

  /** Produce requests answered: the samples of {@link #requestLatencyTotalNanos()}. */
  public long requests() {
    return requests.sum();
  }

  /** The time from sending each answered request to its answer, added up. */
  public long requestLatencyTotalNanos() {
    return requestNanos.sum();
  }

  /** The average request latency in milliseconds, 0 before the first answer. */
  public double averageRequestLatencyMs() {
    long n = requests();
    return n == 0 ? 0 : (double) requestLatencyTotalNanos() / n / TimeUnit.MILLISECONDS.toNanos(1);
  }

  /**
   * Runs {@code r} whenever a reason appears in {@link #errors()} for the first time, on the thread
   * that failed the record: for a metrics binder that keeps one meter per reason. It must be quick.
   */
  public void addListener(Runnable r) {
    listeners.add(r);
  }

  public void removeListener(Runnable r) {
    listeners.remove(r);
  }

  // --- recorded by the sender

  void acknowledged(ProducerBatch b) {
    recordsSent.add(b.count());
    bytesSent.add(b.wireBytes());
    batchesSent.increment();
  }

  void retried(int batches) {
    retries.add(batches);
  }

  void failed(ProducerBatch b, String reason) {
    failed(b.count(), reason);
  }

  /** Records that failed: in a batch, or in send() before they were buffered. */
  void failed(int records, String reason) {
    LongAdder n = errors.get(reason);
    if (n == null) {
      n = errors.computeIfAbsent(reason, r -> new LongAdder());
      n.add(records);
      listeners.forEach(Runnable::run);
      return;
    }
    n.add(records);
  }

  /** Under the accumulator's lock: the requests now in flight. */
  void inFlight(int requestsNow) {
    inFlight = requestsNow;
  }

  /** Under the accumulator's lock: a request sent at {@code sentNanos} was answered. */
  void answered(long sentNanos, long nowNanos, int requestsNow) {
    requests.increment();
    requestNanos.add(nowNanos - sentNanos);
    inFlight = requestsNow;
  }
}
