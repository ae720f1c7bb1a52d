package io.brook.client.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.it.BrokerProcess;
import io.brook.client.Serdes;
import io.brook.client.TopicPartition;
import io.brook.client.ack.AckConsumer;
import io.brook.client.ack.AckConsumerConfig;
import io.brook.client.ack.AckRecord;
import io.brook.client.admin.BrookAdmin;
import io.brook.client.admin.NewGroup;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerConfig;
import io.brook.client.consumer.ConsumerMetrics;
import io.brook.client.consumer.ConsumerRecord;
import io.brook.client.consumer.OffsetResetStrategy;
import io.brook.client.errors.RecordTooLargeException;
import io.brook.client.errors.UnknownPartitionException;
import io.brook.client.micrometer.BrookClientMetrics;
import io.brook.client.producer.BrookProducer;
import io.brook.client.producer.ProducerConfig;
import io.brook.client.producer.ProducerMetrics;
import io.brook.client.producer.ProducerRecord;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The clients' metrics (ProducerMetrics, ConsumerMetrics, the Micrometer binder) against a real broker. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClientMetricsIT {
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

  static BrookProducer<String, String> producer() {
    return new BrookProducer<>(ProducerConfig.builder().broker(broker.address()).linger(Duration.ofMillis(5)).build(),
        Serdes.stringSerializer(), Serdes.stringSerializer());
  }

  static BrookConsumer<String, String> consumer(String group, int maxPollRecords) {
    return new BrookConsumer<>(ConsumerConfig.builder().broker(broker.address()).groupId(group)
        .autoOffsetReset(OffsetResetStrategy.EARLIEST).enableAutoCommit(false).maxPollRecords(maxPollRecords)
        .fetchMaxWait(Duration.ofMillis(100)).sessionTimeout(Duration.ofSeconds(6)).build(),
        Serdes.stringDeserializer(), Serdes.stringDeserializer());
  }

  /** Sends {@code n} records "value-i" with keys over the topic's partitions and waits for all. */
  static void send(BrookProducer<String, String> p, String topic, int n) throws Exception {
    List<CompletableFuture<?>> futures = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      futures.add(p.send(new ProducerRecord<>(topic, "key-" + i, "value-" + i)));
    }
    CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
  }

  @Test
  void producerCountsRecordsBytesBatchesLatencyAndErrorsByReason() throws Exception {
    wire.createTopic("metrics-produce", 3);
    wire.createTopic("metrics-small", 1, Map.of("max.record.bytes", "2000"));
    try (BrookProducer<String, String> p = producer()) {
      ProducerMetrics m = p.metrics();
      assertThat(m.recordsSent()).isZero();
      send(p, "metrics-produce", 1000);

      assertThat(m.recordsSent()).isEqualTo(1000);
      assertThat(m.bytesSent()).as("at least the values' bytes").isGreaterThan(1000L * "value-".length());
      assertThat(m.batchesSent()).isBetween(3L, 1000L); // at least one per partition
      assertThat(m.averageBatchBytes()).isEqualTo((double) m.bytesSent() / m.batchesSent());
      assertThat(m.requests()).isPositive().isLessThanOrEqualTo(m.batchesSent());
      assertThat(m.requestLatencyTotalNanos()).isPositive();
      assertThat(m.requestsInFlight()).isZero();
      assertThat(m.bufferUsedBytes()).as("every record answered").isZero();
      assertThat(m.bufferTotalBytes()).as("bufferMemory's default").isEqualTo(32L << 20);
      assertThat(m.retries()).isZero();
      assertThat(m.errors()).isEmpty();

      // The broker refuses a record over the topic's max.record.bytes: one record failed, by its reason.
      CompletableFuture<?> big = p.send(new ProducerRecord<>("metrics-small", "x".repeat(5000)));
      assertThatThrownBy(() -> big.get(30, TimeUnit.SECONDS)).cause().isInstanceOf(RecordTooLargeException.class);
      assertThat(m.errors()).containsExactly(Map.entry("RECORD_TOO_LARGE", 1L));
      assertThat(m.recordsSent()).isEqualTo(1000);

      // One that fails in send(), before the buffer, counts too.
      CompletableFuture<?> nowhere = p.send(new ProducerRecord<>("metrics-produce", 99, null, "v"));
      assertThatThrownBy(() -> nowhere.get(30, TimeUnit.SECONDS)).cause()
          .isInstanceOf(UnknownPartitionException.class);
      assertThat(m.errors()).containsEntry("UNKNOWN_PARTITION", 1L);
    }
  }

  @Test
  void consumerCountsFetchedRecordsLagRebalancesAndCommits() throws Exception {
    wire.createTopic("metrics-consume", 3);
    try (BrookProducer<String, String> p = producer()) {
      send(p, "metrics-consume", 600);
    }
    try (BrookConsumer<String, String> c = consumer("metrics-group", 50)) {
      ConsumerMetrics m = c.metrics();
      c.subscribe(List.of("metrics-consume"));
      List<ConsumerRecord<String, String>> got = new ArrayList<>(c.poll(Duration.ofSeconds(10)).asList());
      assertThat(got).isNotEmpty();
      assertThat(m.rebalances()).isEqualTo(1);
      assertThat(m.maxLag()).as("records are left after the first poll of 50").isPositive();
      for (int i = 0; i < 400 && got.size() < 600; i++) {
        got.addAll(c.poll(Duration.ofMillis(200)).asList());
      }
      assertThat(got).hasSize(600);
      c.poll(Duration.ofMillis(200)); // nothing left: every partition's end is its position

      assertThat(m.recordsFetched()).isEqualTo(600);
      assertThat(m.bytesFetched()).isGreaterThan(600L * "value-".length());
      assertThat(m.fetches()).isPositive();
      assertThat(m.lag()).containsOnlyKeys(new TopicPartition("metrics-consume", 0),
          new TopicPartition("metrics-consume", 1), new TopicPartition("metrics-consume", 2));
      assertThat(m.lag().values()).containsOnly(0L);
      assertThat(m.maxLag()).isZero();

      c.commitSync();
      assertThat(m.commits()).isEqualTo(1);
      assertThat(m.commitLatencyTotalNanos()).isPositive();
      AtomicReference<Exception> asyncOutcome = new AtomicReference<>(new Exception("not called"));
      c.commitAsync((offsets, e) -> asyncOutcome.set(e));
      for (int i = 0; i < 300 && asyncOutcome.get() != null; i++) {
        c.poll(Duration.ofMillis(50)); // runs the callbacks of async commits answered
      }
      assertThat(asyncOutcome.get()).isNull();
      c.commitSync();
      assertThat(m.commits()).isEqualTo(3);
      assertThat(m.commitFailures()).isZero();
    }
  }

  @Test
  void aRebalanceIsCountedByTheMemberThatWasThereAndTheOneThatJoined() throws Exception {
    wire.createTopic("metrics-rebalance", 2);
    try (BrookConsumer<String, String> first = consumer("metrics-rebalance-group", 100);
        BrookConsumer<String, String> second = consumer("metrics-rebalance-group", 100)) {
      first.subscribe(List.of("metrics-rebalance"));
      for (int i = 0; i < 100 && first.assignment().size() < 2; i++) {
        first.poll(Duration.ofMillis(100));
      }
      assertThat(first.metrics().rebalances()).isEqualTo(1);
      second.subscribe(List.of("metrics-rebalance"));
      // The second join waits for the first member to rejoin: poll both until each holds one partition.
      Thread other = new Thread(() -> {
        for (int i = 0; i < 300 && second.assignment().size() != 1; i++) {
          second.poll(Duration.ofMillis(100));
        }
      });
      other.start();
      for (int i = 0; i < 300 && first.assignment().size() != 1; i++) {
        first.poll(Duration.ofMillis(100));
      }
      other.join(60_000);
      assertThat(first.assignment()).hasSize(1);
      assertThat(second.assignment()).hasSize(1);
      assertThat(first.metrics().rebalances()).isEqualTo(2);
      assertThat(second.metrics().rebalances()).isEqualTo(1);
    }
  }

  @Test
  void micrometerBinderShowsTheCountersAndRemovesThemOnClose() throws Exception {
    wire.createTopic("metrics-micrometer", 2);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Tag app = Tag.of("app", "it");
    try (BrookProducer<String, String> p = producer();
        BrookClientMetrics producerMeters = BrookClientMetrics.bind(p, registry, app)) {
      send(p, "metrics-micrometer", 201);
      assertThat(registry.get("brook.producer.sent.records").tag("app", "it").functionCounter().count())
          .isEqualTo(201);
      assertThat(registry.get("brook.producer.sent.bytes").functionCounter().count()).isEqualTo(p.metrics().bytesSent());
      assertThat(registry.get("brook.producer.sent.batches").functionCounter().count()).isPositive();
      assertThat(registry.get("brook.producer.request.latency").functionTimer().count()).isPositive();
      assertThat(registry.get("brook.producer.request.latency").functionTimer().totalTime(TimeUnit.NANOSECONDS))
          .isPositive();
      assertThat(registry.get("brook.producer.buffer.total").gauge().value()).isEqualTo(p.metrics().bufferTotalBytes());
      assertThat(registry.get("brook.producer.buffer.used").gauge().value()).isZero();
      assertThat(registry.get("brook.producer.requests.in.flight").gauge().value()).isZero();
      assertThat(registry.find("brook.producer.errors").meters()).as("no error yet").isEmpty();
    }
    assertThat(registry.find("brook.producer.sent.records").meters()).as("removed by close").isEmpty();

    try (BrookConsumer<String, String> c = consumer("metrics-micrometer-group", 500);
        BrookClientMetrics consumerMeters = BrookClientMetrics.bind(c, registry, app)) {
      c.subscribe(List.of("metrics-micrometer"));
      int got = 0;
      for (int i = 0; i < 200 && got < 201; i++) {
        got += c.poll(Duration.ofMillis(200)).count();
      }
      assertThat(got).isEqualTo(201);
      c.poll(Duration.ofMillis(100));
      c.commitSync();
      assertThat(registry.get("brook.consumer.fetched.records").functionCounter().count()).isEqualTo(201);
      assertThat(registry.get("brook.consumer.rebalances").functionCounter().count()).isEqualTo(1);
      assertThat(registry.get("brook.consumer.commit.latency").functionTimer().count()).isEqualTo(1);
      assertThat(registry.find("brook.consumer.lag").tag("app", "it").gauges()).hasSize(2)
          .allSatisfy(g -> assertThat(g.value()).isZero());
      assertThat(registry.get("brook.consumer.lag").tags("topic", "metrics-micrometer", "partition", "1").gauge()
          .value()).isZero();
      assertThat(registry.get("brook.consumer.lag.max").gauge().value()).isZero();
    }
    assertThat(registry.find("brook.consumer.lag").meters()).as("removed by close").isEmpty();
  }

  @Test
  void micrometerBinderShowsErrorsByReasonAndTheAckConsumersStats() throws Exception {
    wire.createTopic("metrics-errors", 1, Map.of("max.record.bytes", "2000"));
    wire.createTopic("metrics-jobs", 1);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (BrookProducer<String, String> p = producer(); BrookClientMetrics meters = BrookClientMetrics.bind(p, registry)) {
      CompletableFuture<?> big = p.send(new ProducerRecord<>("metrics-errors", "x".repeat(5000)));
      assertThatThrownBy(() -> big.get(30, TimeUnit.SECONDS)).cause().isInstanceOf(RecordTooLargeException.class);
      assertThat(registry.get("brook.producer.errors").tag("reason", "RECORD_TOO_LARGE").functionCounter().count())
          .isEqualTo(1);
      send(p, "metrics-jobs", 30);
    }
    try (BrookAdmin admin = BrookAdmin.create(broker.address())) {
      admin.createGroup(NewGroup.ackMode("metrics-workers").withConfig("auto.offset.reset", "earliest"));
    }
    try (AckConsumer<String, String> c = AckConsumer.ofStrings(AckConsumerConfig.builder().broker(broker.address())
        .group("metrics-workers").topics("metrics-jobs").build());
        BrookClientMetrics meters = BrookClientMetrics.bind(c, registry)) {
      List<AckRecord<String, String>> got = new ArrayList<>();
      for (int i = 0; i < 200 && got.size() < 30; i++) {
        got.addAll(c.poll(Duration.ofMillis(100)));
      }
      assertThat(got).hasSize(30);
      got.forEach(c::ack);
      assertThat(c.flush()).isEmpty();
      assertThat(registry.get("brook.ack.consumer.received.records").functionCounter().count()).isEqualTo(30);
      assertThat(registry.get("brook.ack.consumer.settles.queued").functionCounter().count()).isEqualTo(30);
      assertThat(registry.get("brook.ack.consumer.redelivered.records").functionCounter().count()).isZero();
    }
  }
}
