package io.brook.broker.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.disk.DiskGuard;
import io.brook.broker.disk.DiskLimits;
import io.brook.broker.durability.Flusher;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.producers.ProducerIds;
import io.brook.broker.records.IncomingBatch;
import io.brook.broker.records.LogRecord;
import io.brook.broker.storage.MemoryLog;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.topics.BatchValidator;
import io.brook.broker.topics.Partition;
import io.brook.broker.topics.TopicConfig;
import io.brook.broker.topics.TopicManager;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Produce through the core as a door calls it: a batch's records are made (copied out of the
 * request) only when the core reaches that batch, so a refused batch is never copied and a request
 * of many batches never holds all of them copied at once.
 */
class ProduceServiceTest {
  @TempDir Path dir;
  TopicManager topics;
  ProduceService produce;

  @BeforeEach
  void setUp() {
    topics = new TopicManager(dir, TopicConfig.defaults(-1, -1, SegmentRoll.HOUR, 1 << 20), 1, MemoryLog::open,
        InstantSource.system());
    topics.recover();
    topics.create("t", 1, Map.of());
    DiskGuard disk = new DiskGuard(() -> Long.MAX_VALUE, new DiskLimits(0, 0, 0, 60_000), () -> 0,
        (from, to, message) -> { }, dir.toString());
    produce = new ProduceService(topics, new BatchValidator(1000), disk, new Flusher(false, Runnable::run),
        new ProducerIds(dir), InstantSource.system());
  }

  @Test
  void eachBatchIsMadeOnlyWhenTheCoreReachesItAndNeverForARefusedOne() throws Exception {
    Partition p = topics.get("t").partition(0);
    List<String> made = new ArrayList<>();
    Supplier<IncomingBatch> unknownTopic = () -> {
      made.add("unknown topic");
      return listed("x");
    };
    Supplier<IncomingBatch> first = () -> {
      made.add("first at end offset " + p.endOffset());
      return listed("a");
    };
    Supplier<IncomingBatch> second = () -> {
      made.add("second at end offset " + p.endOffset()); // after the first was appended
      return listed("b");
    };
    List<BatchOutcome> outcomes = produce.produce(new ProduceCall(null, List.of(
        BatchToAppend.of("nope", 0, null, unknownTopic, 10),
        BatchToAppend.of("t", 0, null, first, 10),
        BatchToAppend.of("t", 0, null, second, 10)), false, null), e -> { }).get();

    assertThat(outcomes).extracting(BatchOutcome::error).containsExactly(BrokerError.UNKNOWN_TOPIC, null, null);
    assertThat(made).containsExactly("first at end offset 0", "second at end offset 1");
  }

  private static IncomingBatch listed(String value) {
    return new IncomingBatch.Listed(List.of(LogRecord.of(null, value.getBytes(), IncomingBatch.Listed.NO_TIMESTAMP,
        List.of())));
  }
}
