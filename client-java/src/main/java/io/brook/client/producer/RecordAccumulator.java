package io.brook.client.producer;

import io.brook.client.Header;
import io.brook.client.TopicPartition;
import io.brook.client.internal.Backoff;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Where {@code send} leaves records and the sender takes batches: per partition queues, the
 * sticky partition of keyless records per topic, and what is due when. One lock guards it all;
 * the sender waits on {@link #wake} for a full batch, a linger deadline, a retry or a flush.
 */
final class RecordAccumulator {
  final ReentrantLock lock = new ReentrantLock();
  final Condition wake = lock.newCondition();
  /** A batch's per-record lists start at most this large (the records of a full batch of tiny ones). */
  private static final int MAX_EXPECTED_RECORDS = 4096;
  private final ProducerConfig config;
  /** The producer's buffer memory, of which {@code send} reserved each record's most. */
  private final Semaphore buffer;
  private final Map<TopicPartition, PartitionQueue> partitions = new HashMap<>();
  /** Batches out of every queue whose futures are being completed outside the lock (see {@link #completing}). */
  private final Set<ProducerBatch> completingBatches = ConcurrentHashMap.newKeySet();
  private final List<PartitionQueue> order = new ArrayList<>();
  /** Per topic: the partition keyless records go to, and whether its batch closed (then the next one). */
  private final Map<String, int[]> sticky = new HashMap<>();
  private int drainStart;
  /** Flushes in progress: while any is, batches go without lingering. */
  int flushing;
  boolean closing;

  RecordAccumulator(ProducerConfig config, Semaphore buffer) {
    this.config = config;
    this.buffer = buffer;
  }

  /** Under the lock. Returns whether the sender should look now (a batch filled up or a new one began). */
  boolean append(TopicPartition tp, int size, byte[] key, byte[] value, List<Header> headers, long timestampMs,
      CompletableFuture<RecordMetadata> future, long now) {
    PartitionQueue pq = queue(tp);
    ProducerBatch open = pq.openBatch();
    boolean fresh = false;
    if (open != null && open.count() > 0 && open.bytes() + size > config.batchSize) {
      close(open);
      open = null;
    }
    if (open == null) {
      int expected = Math.min(MAX_EXPECTED_RECORDS, Math.max(1, config.batchSize / size));
      open = new ProducerBatch(tp, now, config.compression.codec(), expected);
      pq.waiting.addLast(open);
      fresh = true;
    }
    int taken = open.add(key, value, headers, timestampMs, future);
    if (taken < size) {
      buffer.release(size - taken); // the record reserved room for the longest timestamp delta
    }
    if (open.bytes() >= config.batchSize) {
      close(open);
      return true;
    }
    return fresh;
  }

  /**
   * Under the lock: the partition keyless records of this topic go to now. It starts at a random
   * partition and moves to the next one each time its batch closes, so keyless records spread
   * evenly, a batch at a time (Kafka's sticky partitioner moves on after a batch too).
   */
  int stickyPartition(String topic, int partitionCount) {
    int[] state = sticky.get(topic);
    if (state == null) {
      state = new int[] {ThreadLocalRandom.current().nextInt(partitionCount), 0};
      sticky.put(topic, state);
    } else if (state[1] == 1) {
      state[0] = (state[0] + 1) % partitionCount;
      state[1] = 0;
    }
    if (state[0] >= partitionCount) {
      state[0] = 0; // the topic has fewer partitions than before (deleted and created again)
    }
    return state[0];
  }

  /**
   * Under the lock: the partition for a keyless record of {@code size} bytes on the wire. When the
   * sticky partition's open batch cannot take it, that batch closes and the record starts the next
   * partition's batch (as Kafka's producer does), so batches fill up and partitions take turns.
   */
  int keylessPartition(String topic, int partitionCount, int size) {
    int p = stickyPartition(topic, partitionCount);
    PartitionQueue pq = partitions.get(new TopicPartition(topic, p));
    ProducerBatch open = pq == null ? null : pq.openBatch();
    if (open != null && open.count() > 0 && open.bytes() + size > config.batchSize) {
      close(open);
      p = stickyPartition(topic, partitionCount);
    }
    return p;
  }

  /** A batch takes no more records; keyless records of its topic move on to the next partition. */
  private void close(ProducerBatch b) {
    b.closed = true;
    int[] state = sticky.get(b.tp.topic());
    if (state != null && state[0] == b.tp.partition()) {
      state[1] = 1;
    }
  }

  PartitionQueue queue(TopicPartition tp) {
    PartitionQueue pq = partitions.get(tp);
    if (pq == null) {
      pq = new PartitionQueue(tp, new Backoff(config.retryBackoffMs, config.retryBackoffMaxMs));
      partitions.put(tp, pq);
      order.add(pq);
    }
    return pq;
  }

  private boolean sendable(PartitionQueue pq, long now) {
    ProducerBatch head = pq.waiting.peekFirst();
    if (head == null || pq.recovering || pq.inFlight.size() >= config.maxInFlightPerPartition
        || now - pq.retryAtNanos < 0) {
      return false;
    }
    return head.closed || pq.waiting.size() > 1 || flushing > 0 || closing
        || now - head.createdNanos >= config.lingerMs * 1_000_000L;
  }

  /**
   * Under the lock: the batches to send now, at most one per partition and about maxRequestSize
   * bytes in all, moved to their partitions' in-flight queues with their sequence numbers.
   */
  List<ProducerBatch> drain(long now, boolean idempotent) {
    List<ProducerBatch> out = new ArrayList<>();
    int bytes = 0;
    int n = order.size();
    for (int i = 0; i < n; i++) {
      PartitionQueue pq = order.get((drainStart + i) % n);
      if (!sendable(pq, now)) {
        continue;
      }
      ProducerBatch b = pq.waiting.peekFirst();
      if (!out.isEmpty() && bytes + b.bytes() > config.maxRequestSize) {
        drainStart = (drainStart + i) % n; // the next request starts here, so no partition waits behind others
        return out;
      }
      pq.waiting.pollFirst();
      if (!b.closed) {
        close(b);
      }
      if (idempotent) {
        b.baseSequence = pq.nextSendSeq;
        pq.nextSendSeq = PartitionQueue.addSequence(pq.nextSendSeq, b.count());
      }
      b.attempts++;
      pq.inFlight.addLast(b);
      bytes += b.bytes();
      out.add(b);
    }
    drainStart = n == 0 ? 0 : (drainStart + 1) % n;
    return out;
  }

  /** Under the lock: when the sender must look again at the latest (a linger or a retry ends). */
  long nextDueNanos(long now, long atMostNanos) {
    long due = now + atMostNanos;
    for (PartitionQueue pq : order) {
      ProducerBatch head = pq.waiting.peekFirst();
      if (head == null || pq.recovering || pq.inFlight.size() >= config.maxInFlightPerPartition) {
        continue; // an answer or the end of a recovery wakes the sender
      }
      boolean ready = head.closed || pq.waiting.size() > 1 || flushing > 0 || closing;
      long lingerEnd = ready ? now : head.createdNanos + config.lingerMs * 1_000_000L;
      due = Math.min(due, Math.max(lingerEnd, pq.retryAtNanos));
    }
    return due;
  }

  /**
   * Under the lock: waiting batches older than the delivery timeout, taken out. (Batches in flight
   * wait for their answer or the request timeout.)
   */
  List<ProducerBatch> expire(long now) {
    List<ProducerBatch> out = new ArrayList<>();
    long timeout = config.deliveryTimeoutMs * 1_000_000L;
    for (PartitionQueue pq : order) {
      while (!pq.waiting.isEmpty() && now - pq.waiting.peekFirst().createdNanos >= timeout) {
        out.add(pq.waiting.pollFirst());
      }
    }
    return out;
  }

  /** Under the lock: every batch not yet done, for flush. */
  List<CompletableFuture<Void>> pendingBatches() {
    List<CompletableFuture<Void>> out = new ArrayList<>();
    completingBatches.forEach(b -> out.add(b.done));
    for (PartitionQueue pq : order) {
      pq.returned.forEach(b -> out.add(b.done));
      pq.inFlight.forEach(b -> out.add(b.done));
      pq.waiting.forEach(b -> out.add(b.done));
    }
    return out;
  }

  /**
   * Under the lock: {@code b} has left the queues and its futures complete outside the lock (they
   * run the application's callbacks); until they have, {@link #pendingBatches} still lists it, so a
   * flush that comes in between waits for it instead of returning with its records unanswered.
   */
  void completing(ProducerBatch b) {
    if (completingBatches.add(b)) {
      b.done.whenComplete((v, t) -> completingBatches.remove(b));
    }
  }

  /** Under the lock: every batch not yet done, taken out (close and fatal errors fail them). */
  List<ProducerBatch> takeAll() {
    List<ProducerBatch> out = new ArrayList<>();
    for (PartitionQueue pq : order) {
      out.addAll(pq.returned);
      out.addAll(pq.inFlight);
      out.addAll(pq.waiting);
      pq.returned.clear();
      pq.inFlight.clear();
      pq.waiting.clear();
      pq.recovering = false;
    }
    out.forEach(this::completing);
    return out;
  }

  /** Under the lock: a new producer epoch starts every partition's sequence at 0. */
  void resetSequences() {
    for (PartitionQueue pq : order) {
      pq.ackedNextSeq = 0;
      pq.nextSendSeq = 0;
    }
  }

  List<PartitionQueue> partitionQueues() {
    return order;
  }
}
