package io.brook.client.producer;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.client.TopicPartition;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import org.junit.jupiter.api.Test;

/**
 * A batch the sender has settled leaves every queue under the lock, but its futures complete
 * outside it. A flush in between must still wait for it (ProducerIT's round trip once saw flush
 * return with records unanswered).
 */
class FlushWaitsForCompletingBatchesTest {
  @Test
  void aSettledBatchStaysPendingUntilItsFuturesAreComplete() {
    RecordAccumulator acc = new RecordAccumulator(ProducerConfig.builder().build(), new Semaphore(0));
    TopicPartition tp = new TopicPartition("t", 0);
    byte[] value = new byte[10];
    CompletableFuture<RecordMetadata> future = new CompletableFuture<>();
    acc.lock.lock();
    try {
      acc.append(tp, KafkaRecordSize.max(null, value, List.of()), null, value, List.of(), 1L, future, 0);
      PartitionQueue pq = acc.queue(tp);
      ProducerBatch b = pq.waiting.pollFirst();
      pq.inFlight.add(b);
      pq.inFlight.remove(b); // what the sender does when the answer comes
      acc.completing(b);
      assertThat(acc.pendingBatches()).containsExactly(b.done);
      b.succeed(7, 1, false); // the completion, outside the lock in the sender
      assertThat(future).isCompleted();
      assertThat(acc.pendingBatches()).isEmpty();
    } finally {
      acc.lock.unlock();
    }
  }
}
