package io.brook.broker.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.api.Draining;
import io.brook.broker.records.LogRecord;
import io.brook.broker.storage.KafkaBatches;
import io.brook.broker.storage.MemoryLog;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.topics.Appends;
import io.brook.broker.topics.Partition;
import io.brook.broker.topics.TopicConfig;
import io.brook.broker.topics.TopicManager;
import io.brook.protocol.batch.BatchFormat;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import org.apache.kafka.common.record.internal.Record;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A raw read in each form a reader may ask for (D46): as stored, version 1 for an old client, Kafka
 * batches for the Kafka door; limits count what the reader receives.
 */
class FetchFormsTest {
  @TempDir Path dir;
  TopicManager topics;
  Partition partition;
  FetchService fetch;

  /** Measures batches as they are, with a large cap, as a door without framing would. */
  static final AnswerSize PLAIN = AnswerSize.unframed(1 << 20);

  @BeforeEach
  void setUp() {
    topics = new TopicManager(dir, TopicConfig.defaults(-1, -1, SegmentRoll.HOUR, 1 << 20), 1, MemoryLog::open,
        InstantSource.system());
    topics.recover();
    partition = topics.create("t", 1, Map.of()).partition(0);
    fetch = new FetchService(topics, 1000, Executors.newSingleThreadExecutor(),
        Executors.newSingleThreadScheduledExecutor(), new Draining());
    for (int b = 0; b < 4; b++) {
      List<LogRecord> records = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        records.add(LogRecord.of(null, ("b" + b + "-" + i).getBytes(StandardCharsets.UTF_8), 1000 + i, List.of()));
      }
      Appends.append(partition, records);
    }
  }

  @AfterEach
  void tearDown() {
    topics.close();
  }

  private PartitionRead read(BatchForm form, long offset, int maxBytes) {
    return fetch.read(new FetchQuery(List.of(new FetchPosition("t", 0, offset)), 1000, maxBytes, form, 0), PLAIN)
        .get(0);
  }

  @Test
  void eachFormGivesTheBatchesItNames() {
    PartitionRead stored = read(BatchForm.STORED_AS_IS, 0, 1 << 20);
    assertThat(stored.batches()).hasSize(4).allSatisfy(b -> assertThat(b[0]).isEqualTo(BatchFormat.VERSION_2));
    PartitionRead old = read(BatchForm.STORED_V1, 0, 1 << 20);
    assertThat(old.batches()).hasSize(4).allSatisfy(b -> assertThat(b[0]).isEqualTo(BatchFormat.VERSION));
    PartitionRead kafka = read(BatchForm.KAFKA, 15, 1 << 20);
    assertThat(kafka.nextOffset()).isEqualTo(40);
    List<Long> offsets = new ArrayList<>();
    // Version 2 stored batches, whose Kafka part the Kafka door sends after Brook's prefix.
    assertThat(kafka.batches()).allSatisfy(b -> assertThat(b[0]).isEqualTo(BatchFormat.VERSION_2));
    for (byte[] b : kafka.batches()) {
      for (Record r : KafkaBatches.records(KafkaBatches.readStored(b))) {
        offsets.add(r.offset());
      }
    }
    assertThat(offsets).hasSize(30).first().isEqualTo(10L); // the whole batch holding offset 15
    assertThat(offsets).last().isEqualTo(39L);
    assertThat(read(BatchForm.RECORDS, 15, 1 << 20).records()).hasSize(25);
  }

  @Test
  void maxBytesCountsTheBatchesAsTheReaderReceivesThem() {
    int v1 = read(BatchForm.STORED_V1, 0, 1).batches().get(0).length;
    int v2 = read(BatchForm.STORED_AS_IS, 0, 1).batches().get(0).length;
    int kafka = read(BatchForm.KAFKA, 0, 1).batches().get(0).length - BatchFormat.V2_PREFIX_SIZE; // what is sent
    assertThat(v1).isLessThan(v2);
    assertThat(kafka).isEqualTo(v2 - BatchFormat.V2_PREFIX_SIZE);
    // Room for exactly three converted batches: three come, though three stored ones would not fit.
    assertThat(read(BatchForm.STORED_V1, 0, 3 * v1).batches()).hasSize(3);
    assertThat(read(BatchForm.KAFKA, 0, 3 * kafka).batches()).hasSize(3);
    assertThat(read(BatchForm.STORED_AS_IS, 0, 3 * kafka).batches()).hasSize(2);
    assertThat(read(BatchForm.STORED_V1, 0, 3 * v1 - 1).batches()).hasSize(2);
    assertThat(read(BatchForm.STORED_V1, 0, 3 * v1).nextOffset()).isEqualTo(30);
  }
}
