package io.brook.broker.core;

import io.brook.broker.errors.BrokerException;
import io.brook.broker.records.LogRecord;
import io.brook.broker.topics.Partition;
import io.brook.broker.topics.TopicManager;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Fetch, list offsets and tail, for every door: reads by offset within the client's limits and the
 * door's answer cap, waits for records without holding a thread, resolves positions to offsets.
 * Errors of one partition stay in its part of the answer.
 */
public final class FetchService {
  private final TopicManager topics;
  private final long maxWaitMs;
  private final Executor readExecutor;
  private final ScheduledExecutorService timer;
  private final DrainRegistry draining;

  /**
   * @param maxWaitMs the longest a fetch waits for records (fetch.max.wait.ms), whatever it asks
   * @param readExecutor bounded pool where woken long polls read
   * @param timer fires long-poll timeouts
   * @param draining where waiting fetches register, so that a shutdown answers them at once
   */
  public FetchService(TopicManager topics, long maxWaitMs, Executor readExecutor, ScheduledExecutorService timer,
      DrainRegistry draining) {
    this.topics = topics;
    this.maxWaitMs = maxWaitMs;
    this.readExecutor = readExecutor;
    this.timer = timer;
    this.draining = draining;
  }

  /** Reads every partition of {@code query} once, sharing its record, byte and answer limits in order. */
  public List<PartitionRead> read(FetchQuery query, AnswerSize size) {
    FetchAnswer answer = new FetchAnswer(query.maxRecords(), query.maxBytes(), size);
    List<PartitionRead> reads = new ArrayList<>(query.positions().size());
    for (FetchPosition at : query.positions()) {
      answer.partition();
      List<LogRecord> records = new ArrayList<>();
      List<byte[]> batches = new ArrayList<>();
      long next = at.offset();
      long start = 0;
      long end = 0;
      try {
        Partition p = topics.get(at.topic()).partition(at.partition());
        start = p.startOffset();
        end = p.endOffset();
        if (answer.hasRoom()) {
          next = query.form().raw() ? answer.addBatches(p, at.offset(), query.form(), batches, records)
              : answer.addRecords(p, at.offset(), records);
          end = Math.max(p.endOffset(), next);
        }
        reads.add(new PartitionRead(at.topic(), at.partition(), records, batches, next, start, end, null, null));
      } catch (BrokerException e) {
        reads.add(new PartitionRead(at.topic(), at.partition(), List.of(), List.of(), next, start, end, e.error(),
            e.getMessage()));
      }
    }
    return reads;
  }

  /**
   * A wait for records after {@code first} found none: it runs {@code answer} once records come or the
   * wait ends. Null when there is nothing to wait for (no wait asked, records or errors already there,
   * a partition gone meanwhile): answer with {@code first} now. The caller starts it.
   */
  public LongPoll longPoll(FetchQuery query, List<PartitionRead> first, Runnable answer) {
    long waitMs = Math.min(query.maxWaitMs(), maxWaitMs);
    if (waitMs == 0 || first.stream().anyMatch(PartitionRead::hasRecordsOrError)) {
      return null;
    }
    List<Partition> waitOn = new ArrayList<>();
    List<Long> offsets = new ArrayList<>();
    try {
      for (FetchPosition at : query.positions()) {
        waitOn.add(topics.get(at.topic()).partition(at.partition()));
        offsets.add(at.offset());
      }
    } catch (RuntimeException e) { // deleted since the read
      return null;
    }
    return new LongPoll(answer, readExecutor, timer, draining, waitOn, offsets, waitMs);
  }

  /**
   * The offset {@code position} resolves to in a partition, with its bounds; null position: the end.
   * Errors are the answer's, not thrown.
   */
  public OffsetLookup listOffset(String topic, int partition, Position position) {
    try {
      Partition p = topics.get(topic).partition(partition);
      long offset = resolve(p, position, p.endOffset());
      return new OffsetLookup(topic, partition, offset, p.startOffset(), p.endOffset(), null, null);
    } catch (BrokerException e) {
      return new OffsetLookup(topic, partition, 0, 0, 0, e.error(), e.getMessage());
    }
  }

  /**
   * A tail's cursor on a partition, at {@code start} (null: the end, only records yet to come).
   *
   * @throws BrokerException an unknown topic or partition, an offset outside the log
   */
  public TailCursor tail(String topic, int partition, Position start, AnswerSize size) {
    Partition p = topics.get(topic).partition(partition);
    return new TailCursor(p, resolve(p, start, p.endOffset()), size);
  }

  /**
   * @param whenUnset the offset used when no position is given
   * @throws BrokerException OFFSET_OUT_OF_RANGE for an offset outside the log
   */
  private static long resolve(Partition p, Position position, long whenUnset) {
    if (position == null) {
      return whenUnset;
    }
    if (position instanceof Position.Offset o) {
      p.checkInRange(o.offset());
      return o.offset();
    }
    if (position instanceof Position.Timestamp t) {
      return p.offsetForTimestamp(t.timestampMs());
    }
    return position instanceof Position.Earliest ? p.startOffset() : p.endOffset();
  }
}
