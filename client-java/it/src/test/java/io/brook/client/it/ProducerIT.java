package io.brook.client.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.it.BrokerProcess;
import io.brook.client.Durability;
import io.brook.client.Header;
import io.brook.client.Serdes;
import io.brook.client.errors.BufferExhaustedException;
import io.brook.client.errors.ClientClosedException;
import io.brook.client.errors.RecordTooLargeException;
import io.brook.client.errors.UnknownPartitionException;
import io.brook.client.errors.UnknownTopicException;
import io.brook.client.producer.BrookProducer;
import io.brook.client.producer.ProducerConfig;
import io.brook.client.producer.ProducerRecord;
import io.brook.client.producer.RecordMetadata;
import io.brook.protocol.Partitioner;
import io.brook.protocol.v1.Record;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The producer against a real broker process. */
class ProducerIT {
  @TempDir static Path dir;
  static BrokerProcess broker;
  static TestData wire;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
    wire = new TestData(broker.channel());
  }

  @AfterAll
  static void stop() throws Exception {
    broker.close();
  }

  static ProducerConfig.Builder config() {
    return ProducerConfig.builder().broker(broker.address());
  }

  static BrookProducer<String, String> producer(ProducerConfig.Builder config) {
    return new BrookProducer<>(config.build(), Serdes.stringSerializer(), Serdes.stringSerializer());
  }

  static String text(com.google.protobuf.ByteString b) {
    return b.toStringUtf8();
  }

  @Test
  void roundTripKeepsKeysHeadersTimestampsAndKafkaPartitioning() throws Exception {
    wire.createTopic("round-trip", 3, Map.of());
    List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
    try (BrookProducer<String, String> producer = producer(config())) {
      for (int i = 0; i < 300; i++) {
        futures.add(producer.send(new ProducerRecord<>("round-trip", null, 1_700_000_000_000L + i, "key-" + (i % 10),
            "value-" + i, List.of(Header.of("n", Integer.toString(i)), Header.of("n", "again")))));
      }
      RecordMetadata keyless = producer.sendSync(new ProducerRecord<>("round-trip", "no key"));
      assertThat(keyless.partition()).isBetween(0, 2);
      producer.flush();
      assertThat(futures).allMatch(CompletableFuture::isDone);
    }
    Map<Integer, List<Record>> byPartition = new HashMap<>();
    for (int p = 0; p < 3; p++) {
      byPartition.put(p, wire.readAll("round-trip", p));
    }
    for (int i = 0; i < 300; i++) {
      RecordMetadata md = futures.get(i).get();
      String key = "key-" + (i % 10);
      assertThat(md.partition()).isEqualTo(Partitioner.partitionForKey(key.getBytes(StandardCharsets.UTF_8), 3));
      assertThat(md.timestampMs()).isEqualTo(1_700_000_000_000L + i);
      Record stored = byPartition.get(md.partition()).get((int) md.offset());
      assertThat(text(stored.getKey())).isEqualTo(key);
      assertThat(text(stored.getValue())).isEqualTo("value-" + i);
      assertThat(stored.getTimestampMs()).isEqualTo(1_700_000_000_000L + i);
      assertThat(stored.getHeadersList()).extracting(h -> h.getKey() + "=" + text(h.getValue()))
          .containsExactly("n=" + i, "n=again");
    }
    int total = byPartition.values().stream().mapToInt(List::size).sum();
    assertThat(total).isEqualTo(301);
  }

  @Test
  void eightThreadsSendAtOnceAndEveryRecordIsWrittenOnceInOrderPerKey() throws Exception {
    wire.createTopic("threads", 4, Map.of());
    int threads = 8;
    int perThread = 5_000;
    try (BrookProducer<String, String> producer = producer(config().linger(Duration.ofMillis(2)))) {
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<List<CompletableFuture<RecordMetadata>>>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        results.add(pool.submit(() -> {
          List<CompletableFuture<RecordMetadata>> mine = new ArrayList<>();
          for (int i = 0; i < perThread; i++) {
            mine.add(producer.send(new ProducerRecord<>("threads", "t" + thread, thread + ":" + i)));
          }
          return mine;
        }));
      }
      for (Future<List<CompletableFuture<RecordMetadata>>> r : results) {
        for (CompletableFuture<RecordMetadata> f : r.get()) {
          f.get(60, TimeUnit.SECONDS);
        }
      }
      pool.shutdown();
    }
    Map<String, Integer> nextPerThread = new HashMap<>();
    int total = 0;
    for (int p = 0; p < 4; p++) {
      for (Record r : wire.readAll("threads", p)) {
        String[] parts = text(r.getValue()).split(":");
        int expected = nextPerThread.getOrDefault(parts[0], 0);
        assertThat(Integer.parseInt(parts[1])).as("thread %s's records in send order", parts[0]).isEqualTo(expected);
        nextPerThread.put(parts[0], expected + 1);
        total++;
      }
    }
    assertThat(total).isEqualTo(threads * perThread);
  }

  @Test
  void brokerKilledAndRestartedDuringASendLoopLosesAndDuplicatesNothing() throws Exception {
    Path data = dir.resolve("restart-data");
    try (BrokerProcess own = BrokerProcess.start(data)) {
      new TestData(own.channel()).createTopic("survive", 2, Map.of());
      int count = 30_000;
      List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
      try (BrookProducer<String, String> producer = new BrookProducer<>(ProducerConfig.builder()
          .broker(own.address()).linger(Duration.ofMillis(1)).build(), Serdes.stringSerializer(),
          Serdes.stringSerializer())) {
        for (int i = 0; i < count; i++) {
          futures.add(producer.send(new ProducerRecord<>("survive", "k" + (i % 7), "r" + i)));
          if (i == count / 3) {
            own.kill9();
          }
          if (i == count / 2) {
            own.restartOnSamePort();
          }
        }
        producer.flush();
      }
      TestData after = new TestData(own.channel());
      List<List<Record>> partitions = List.of(after.readAll("survive", 0), after.readAll("survive", 1));
      Set<String> seen = new HashSet<>();
      for (List<Record> records : partitions) {
        for (int o = 0; o < records.size(); o++) {
          assertThat(records.get(o).getOffset()).isEqualTo(o);
          assertThat(seen.add(text(records.get(o).getValue()))).as("written once: %s", text(records.get(o).getValue()))
              .isTrue();
        }
      }
      assertThat(seen).hasSize(count);
      for (int i = 0; i < count; i++) {
        RecordMetadata md = futures.get(i).get();
        assertThat(text(partitions.get(md.partition()).get((int) md.offset()).getValue())).isEqualTo("r" + i);
      }
    }
  }

  @Test
  void aRecordWithoutATimestampGetsTheProducersClockAndALogAppendTimeTopicAnswersItsAppendTime() throws Exception {
    wire.createTopic("clock", 1, Map.of());
    wire.createTopic("append-time", 1, Map.of("message.timestamp.type", "LogAppendTime"));
    RecordMetadata own;
    RecordMetadata stamped;
    RecordMetadata appended;
    long before = System.currentTimeMillis();
    try (BrookProducer<String, String> producer = producer(config())) {
      own = producer.sendSync(new ProducerRecord<>("clock", 0, 5L, null, "own", List.of()));
      stamped = producer.sendSync(new ProducerRecord<>("clock", 0, null, null, "none", List.of()));
      appended = producer.sendSync(new ProducerRecord<>("append-time", 0, 5L, null, "replaced", List.of()));
    }
    long after = System.currentTimeMillis();
    List<Record> clock = wire.readAll("clock", 0);
    assertThat(own.timestampMs()).isEqualTo(5L);
    assertThat(clock.get(0).getTimestampMs()).isEqualTo(5L);
    assertThat(stamped.timestampMs()).isBetween(before, after);
    assertThat(clock.get(1).getTimestampMs()).as("what the metadata said is stored").isEqualTo(stamped.timestampMs());
    assertThat(appended.timestampMs()).isEqualTo(appended.appendTimeMs());
    assertThat(wire.readAll("append-time", 0).get(0).getTimestampMs()).isEqualTo(appended.appendTimeMs());
  }

  @Test
  void aRecordTheBrokerRefusesFailsAloneAndTheRecordsAroundItAreWritten() throws Exception {
    wire.createTopic("too-large", 1, Map.of("max.record.bytes", "2000"));
    List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
    // One batch of 50: the broker refuses it whole, the producer halves it until the large record is alone.
    try (BrookProducer<String, String> producer =
        producer(config().batchSize(1 << 20).linger(Duration.ofMillis(200)))) {
      for (int i = 0; i < 50; i++) {
        String value = i == 20 ? "x".repeat(5000) : "small-" + i;
        futures.add(producer.send(new ProducerRecord<>("too-large", 0, null, value)));
      }
      producer.flush();
    }
    assertThatThrownBy(() -> futures.get(20).get()).cause().isInstanceOf(RecordTooLargeException.class)
        .hasMessageContaining("max.record.bytes");
    List<String> stored = wire.readAll("too-large", 0).stream().map(r -> text(r.getValue())).toList();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      if (i != 20) {
        expected.add("small-" + i);
        assertThat(futures.get(i).get().offset()).isEqualTo(expected.size() - 1);
      }
    }
    assertThat(stored).isEqualTo(expected);
  }

  @Test
  void withPipelinedSingleRecordBatchesARefusedOneLeavesNoSequenceGap() throws Exception {
    wire.createTopic("too-large-pipelined", 1, Map.of("max.record.bytes", "2000"));
    List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
    try (BrookProducer<String, String> producer = producer(config().batchSize(1).linger(Duration.ofMillis(0)))) {
      for (int i = 0; i < 50; i++) {
        futures.add(producer.send(new ProducerRecord<>("too-large-pipelined", 0, null,
            i % 10 == 5 ? "x".repeat(5000) : "small-" + i)));
      }
      producer.flush();
    }
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      if (i % 10 == 5) {
        int index = i;
        assertThatThrownBy(() -> futures.get(index).get()).cause().isInstanceOf(RecordTooLargeException.class);
      } else {
        expected.add("small-" + i);
        assertThat(futures.get(i).get().offset()).isEqualTo(expected.size() - 1);
      }
    }
    assertThat(wire.readAll("too-large-pipelined", 0).stream().map(r -> text(r.getValue())).toList())
        .isEqualTo(expected);
  }

  @Test
  void unknownTopicAndPartitionFailTheFutureWithTypedExceptions() {
    wire.createTopic("two-partitions", 2, Map.of());
    try (BrookProducer<String, String> producer = producer(config())) {
      assertThatThrownBy(() -> producer.send(new ProducerRecord<>("no-such-topic", "v")).get())
          .isInstanceOf(ExecutionException.class).cause().isInstanceOf(UnknownTopicException.class)
          .hasMessageContaining("no-such-topic");
      assertThatThrownBy(() -> producer.sendSync(new ProducerRecord<>("two-partitions", 5, null, "v")))
          .isInstanceOf(UnknownPartitionException.class).hasMessageContaining("has no partition 5 (it has 2)");
      assertThat(producer.sendSync(new ProducerRecord<>("two-partitions", 1, null, "v")).partition()).isEqualTo(1);
    }
  }

  @Test
  void syncedDurabilityForcesTheLog() {
    wire.createTopic("synced", 1, Map.of());
    try (BrookProducer<String, String> producer = producer(config().durability(Durability.SYNCED))) {
      for (int i = 0; i < 5; i++) {
        producer.sendSync(new ProducerRecord<>("synced", "v" + i));
      }
    }
    assertThat(wire.describeTopic("synced").getPartitions(0).getForceCount()).isGreaterThanOrEqualTo(1);
  }

  @Test
  void aFullBufferBlocksSendThenFailsAndTheQueuedRecordsGoOutOnceTheBrokerTakesThemAgain() throws Exception {
    Path data = dir.resolve("pause-data");
    try (BrokerProcess own = BrokerProcess.start(data)) {
      new TestData(own.channel()).createTopic("paused", 1, Map.of());
      try (BrookProducer<String, String> producer = new BrookProducer<>(ProducerConfig.builder()
          .broker(own.address()).bufferMemory(64 * 1024).maxBlock(Duration.ofMillis(300)).build(),
          Serdes.stringSerializer(), Serdes.stringSerializer())) {
        producer.sendSync(new ProducerRecord<>("paused", "before")); // the partition count is known from here on
        signal(own.pid(), "STOP");
        List<CompletableFuture<RecordMetadata>> queued = new ArrayList<>();
        try {
          String value = "v".repeat(1000);
          assertThatThrownBy(() -> {
            for (int i = 0; i < 1000; i++) {
              queued.add(producer.send(new ProducerRecord<>("paused", value)));
            }
          }).isInstanceOf(BufferExhaustedException.class).hasMessageContaining("bufferMemory (65536 bytes)");
          assertThat(queued.size()).as("records that fit the buffer").isBetween(20, 70);
          assertThat(queued).noneMatch(CompletableFuture::isDone);
        } finally {
          signal(own.pid(), "CONT");
        }
        for (CompletableFuture<RecordMetadata> f : queued) {
          f.get(60, TimeUnit.SECONDS);
        }
        assertThat(new TestData(own.channel()).readAll("paused", 0)).hasSize(1 + queued.size());
      }
    }
  }

  @Test
  void aSilentBrokerGetsTheRequestsAgainOnANewStreamAndWritesEachOnce() throws Exception {
    Path data = dir.resolve("silent-data");
    try (BrokerProcess own = BrokerProcess.start(data)) {
      new TestData(own.channel()).createTopic("silent", 1, Map.of());
      List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
      try (BrookProducer<String, String> producer = new BrookProducer<>(ProducerConfig.builder()
          .broker(own.address()).requestTimeout(Duration.ofSeconds(1)).build(), Serdes.stringSerializer(),
          Serdes.stringSerializer())) {
        futures.add(producer.send(new ProducerRecord<>("silent", "r0")));
        futures.get(0).get(30, TimeUnit.SECONDS);
        signal(own.pid(), "STOP");
        try {
          for (int i = 1; i <= 300; i++) {
            futures.add(producer.send(new ProducerRecord<>("silent", "r" + i)));
          }
          Thread.sleep(3_000); // several request timeouts: streams cancelled and opened again
          assertThat(futures.subList(1, futures.size())).noneMatch(CompletableFuture::isDone);
        } finally {
          signal(own.pid(), "CONT");
        }
        producer.flush();
      }
      List<String> stored = new TestData(own.channel()).readAll("silent", 0).stream()
          .map(r -> text(r.getValue())).toList();
      List<String> expected = new ArrayList<>();
      for (int i = 0; i <= 300; i++) {
        expected.add("r" + i);
        assertThat(futures.get(i).get().offset()).isEqualTo(i);
      }
      assertThat(stored).isEqualTo(expected);
    }
  }

  @Test
  void closeWithATimeoutFailsWhatTheBrokerDidNotAnswer() throws Exception {
    Path data = dir.resolve("close-data");
    try (BrokerProcess own = BrokerProcess.start(data)) {
      new TestData(own.channel()).createTopic("closing", 1, Map.of());
      BrookProducer<String, String> producer = new BrookProducer<>(ProducerConfig.builder()
          .broker(own.address()).build(), Serdes.stringSerializer(), Serdes.stringSerializer());
      producer.sendSync(new ProducerRecord<>("closing", "first"));
      own.kill9();
      CompletableFuture<RecordMetadata> unanswered = producer.send(new ProducerRecord<>("closing", "second"));
      producer.close(Duration.ofMillis(500));
      assertThatThrownBy(unanswered::get).cause().isInstanceOf(ClientClosedException.class);
      assertThatThrownBy(() -> producer.send(new ProducerRecord<>("closing", "third")))
          .isInstanceOf(ClientClosedException.class);
    }
  }

  private static void signal(long pid, String signal) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
    assertThat(kill.waitFor()).isZero();
  }
}
