package io.brook.client.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.it.BrokerProcess;
import io.brook.client.Header;
import io.brook.client.Serdes;
import io.brook.client.producer.BrookProducer;
import io.brook.client.producer.CompressionType;
import io.brook.client.producer.ProducerConfig;
import io.brook.client.producer.ProducerRecord;
import io.brook.client.producer.RecordMetadata;
import io.brook.protocol.batch.BatchFormat;
import io.brook.protocol.batch.KafkaBatch;
import io.brook.protocol.v1.FetchPartition;
import io.brook.protocol.v1.FetchRequest;
import io.brook.protocol.v1.FetchServiceGrpc;
import io.brook.protocol.v1.PartitionRecords;
import io.brook.protocol.v1.Record;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * The producer's compression option against a real broker process (D49): in every codec the records
 * come back with their keys, headers and timestamps, the broker stores each batch as it came
 * (compressed with that codec), and an idempotent producer's retried compressed batch is not
 * written twice.
 */
class ProducerCompressionIT {
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

  static BrookProducer<String, String> producer(ProducerConfig.Builder config) {
    return new BrookProducer<>(config.build(), Serdes.stringSerializer(), Serdes.stringSerializer());
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void everyCodecRoundTripsKeysHeadersAndTimestampsAndIsStoredAsSent(CompressionType codec) throws Exception {
    String topic = "codec-" + codec.name().toLowerCase(Locale.ROOT);
    wire.createTopic(topic, 1, Map.of());
    long t = 1_700_000_000_000L;
    List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
    try (BrookProducer<String, String> producer = producer(ProducerConfig.builder().broker(broker.address())
        .compression(codec).linger(Duration.ofMillis(50)))) {
      for (int i = 0; i < 500; i++) {
        List<Header> headers = i % 3 == 0 ? List.of() : List.of(Header.of("n", Integer.toString(i)), Header.of("n", ""));
        futures.add(producer.send(new ProducerRecord<>(topic, 0, t + i, i % 5 == 0 ? null : "key-" + i,
            "a fairly repetitive value, repetitive enough to compress, number " + i, headers)));
      }
      producer.flush();
      assertThat(producer.metrics().recordsSent()).isEqualTo(500);
      long raw = 500L * 60;
      if (codec == CompressionType.NONE) {
        assertThat(producer.metrics().bytesSent()).isGreaterThan(raw);
      } else {
        assertThat(producer.metrics().bytesSent()).as("bytes as sent, compressed").isLessThan(raw);
      }
    }
    List<Record> stored = wire.readAll(topic, 0);
    assertThat(stored).hasSize(500);
    for (int i = 0; i < 500; i++) {
      Record r = stored.get(i);
      assertThat(futures.get(i).get().offset()).isEqualTo(i);
      assertThat(futures.get(i).get().timestampMs()).isEqualTo(t + i);
      assertThat(r.getOffset()).isEqualTo(i);
      assertThat(r.getTimestampMs()).isEqualTo(t + i);
      assertThat(r.hasKey()).isEqualTo(i % 5 != 0);
      if (i % 5 != 0) {
        assertThat(r.getKey().toStringUtf8()).isEqualTo("key-" + i);
      }
      assertThat(r.getValue().toStringUtf8()).endsWith("number " + i);
      assertThat(r.getHeadersList()).extracting(h -> h.getKey() + "=" + h.getValue().toStringUtf8())
          .containsExactlyElementsOf(i % 3 == 0 ? List.of() : List.of("n=" + i, "n="));
    }
    // As stored: version 2 batches whose Kafka header names the producer's codec.
    PartitionRecords raw = FetchServiceGrpc.newBlockingStub(broker.channel()).withDeadlineAfter(30, TimeUnit.SECONDS)
        .fetch(FetchRequest.newBuilder().addPartitions(FetchPartition.newBuilder().setTopic(topic).setPartition(0)
            .setOffset(0)).setRawBatches(true).setMaxBatchVersion(2).setMaxRecords(1000).build()).getPartitions(0);
    assertThat(raw.getBatchesCount()).isPositive();
    for (var batch : raw.getBatchesList()) {
      byte[] b = batch.toByteArray();
      assertThat(BatchFormat.version(b, 0)).isEqualTo((int) BatchFormat.VERSION_2);
      assertThat(KafkaBatch.compression(b, BatchFormat.V2_PREFIX_SIZE).name()).isEqualTo(codec.name());
    }
  }

  @Test
  void aRetriedCompressedBatchOfAnIdempotentProducerIsWrittenOnce() throws Exception {
    try (BrokerProcess own = BrokerProcess.start(dir.resolve("retry-data"))) {
      new TestData(own.channel()).createTopic("retried", 1, Map.of());
      List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
      try (BrookProducer<String, String> producer = producer(ProducerConfig.builder().broker(own.address())
          .compression(CompressionType.ZSTD).requestTimeout(Duration.ofSeconds(1)))) {
        futures.add(producer.send(new ProducerRecord<>("retried", "r0")));
        futures.get(0).get(30, TimeUnit.SECONDS);
        signal(own.pid(), "STOP");
        try {
          for (int i = 1; i <= 200; i++) {
            futures.add(producer.send(new ProducerRecord<>("retried", "r" + i)));
          }
          Thread.sleep(3_000); // several request timeouts: the same batches go again on new streams
        } finally {
          signal(own.pid(), "CONT");
        }
        producer.flush();
        assertThat(producer.metrics().retries()).as("batches went again").isPositive();
      }
      List<Record> stored = new TestData(own.channel()).readAll("retried", 0);
      Set<String> seen = new HashSet<>();
      for (Record r : stored) {
        assertThat(seen.add(r.getValue().toStringUtf8())).as("written once: %s", r.getValue().toStringUtf8()).isTrue();
      }
      assertThat(stored).hasSize(201);
      for (int i = 0; i <= 200; i++) {
        assertThat(stored.get((int) futures.get(i).get().offset()).getValue().toStringUtf8()).isEqualTo("r" + i);
      }
    }
  }

  private static void signal(long pid, String signal) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
    assertThat(kill.waitFor()).isZero();
  }
}
