package io.brook.broker.core;

import io.brook.broker.records.LogRecord;
import io.brook.broker.topics.Partition;
import java.util.ArrayList;
import java.util.List;

/**
 * A tail's place in one partition: reads the records after it in turn, and leaves a waiter on the
 * partition when it is caught up, so a tail holds no thread while it waits. Used by one thread at a
 * time (the tail's serial executor).
 */
public final class TailCursor {
  private final Partition partition;
  private final AnswerSize size;
  private long next;

  TailCursor(Partition partition, long next, AnswerSize size) {
    this.partition = partition;
    this.next = next;
    this.size = size;
  }

  /**
   * The records after the cursor that fit one message, and moves past them; no records when it is
   * caught up.
   *
   * @throws io.brook.broker.errors.BrokerException the partition's topic was deleted, or retention
   *     passed the cursor (OFFSET_OUT_OF_RANGE)
   */
  public PartitionRead read(int maxRecords, int maxBytes) {
    FetchAnswer answer = new FetchAnswer(maxRecords, maxBytes, size);
    answer.partition();
    List<LogRecord> records = new ArrayList<>();
    long after = answer.addRecords(partition, next, records);
    if (records.isEmpty()) {
      return new PartitionRead(topic(), partition(), records, List.of(), next, 0, 0, null, null);
    }
    next = after;
    return new PartitionRead(topic(), partition(), records, List.of(), after, partition.startOffset(),
        partition.endOffset(), null, null);
  }

  /**
   * Runs {@code waiter} once records are beyond the cursor: at once (returning false) if they already
   * are. The waiter runs on the appending thread: it must only hand work to an executor.
   */
  public boolean waitForRecords(Runnable waiter) {
    return partition.whenDataBeyond(next, waiter);
  }

  public void cancelWait(Runnable waiter) {
    partition.cancelWaiter(waiter);
  }

  public String topic() {
    return partition.topic().name();
  }

  public int partition() {
    return partition.index();
  }
}
