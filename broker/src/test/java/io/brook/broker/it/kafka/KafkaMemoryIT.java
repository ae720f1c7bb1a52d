package io.brook.broker.it.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.it.BrokerProcess;
import io.brook.broker.storage.KafkaBatches;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka answers count against the broker's outbound memory (outbound.max.bytes), as gRPC's do: clients
 * that pipeline large fetches and never read hold at most their connection's share, their further
 * fetches wait their turn, and another Kafka client produces and fetches meanwhile. The broker runs on
 * a 256 MiB heap: the pipelined answers of 40 MiB each that the hogs ask for used to be built and
 * held whole, which does not fit.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class KafkaMemoryIT {
  static final long LIMIT = 24L << 20;
  static final long SHARE = 4L << 20;
  static final int MIB_BATCHES = 40; // 40 MiB in topic big, in batches of 1 MiB
  static final int PIPELINED = 32;
  @TempDir static Path dir;
  static BrokerProcess broker;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"), Map.of(), List.of("-Xmx256m"), "--set",
        "outbound.max.bytes=" + LIMIT, "--set", "outbound.client.max.bytes=" + SHARE);
    RawKafka.createTopic(broker.kafkaPort(), "big", 1);
    RawKafka.createTopic(broker.kafkaPort(), "small", 1);
    byte[] value = new byte[100 << 10];
    try (KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
      for (int i = 0; i < MIB_BATCHES; i++) {
        KafkaBatches.KRecord[] records = new KafkaBatches.KRecord[10];
        for (int j = 0; j < records.length; j++) {
          records[j] = new KafkaBatches.KRecord(1000L, null, new String(value, java.nio.charset.StandardCharsets.ISO_8859_1));
        }
        wire.write(RawKafka.produce(i, "big", List.of(KafkaBatches.batch(Compression.NONE, records))));
        ProduceResponseData answer = (ProduceResponseData) RawKafka.read(wire, ApiKeys.PRODUCE, RawKafka.PRODUCE_V, i);
        assertThat(answer.responses().iterator().next().partitionResponses().get(0).errorCode()).isZero();
      }
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (broker != null) {
      String log = broker.currentStartLog();
      boolean alive = broker.isAlive();
      broker.close();
      assertThat(alive).as("the broker outlived the test").isTrue();
      assertThat(log).doesNotContain("OutOfMemoryError");
    }
  }

  /** Answer bytes the broker holds (with the scrape's own reservation). */
  private static double held() throws Exception {
    return broker.metric("brook_outbound_bytes");
  }

  @Test
  void fetchesThatAreNeverReadHoldTheirShareWaitTheirTurnAndOthersAreServed() throws Exception {
    List<KafkaWire> hogs = new ArrayList<>();
    try {
      for (int h = 0; h < 3; h++) {
        KafkaWire hog = new KafkaWire(broker.kafkaPort());
        hogs.add(hog);
        OutputStream out = hog.socket.getOutputStream();
        for (int i = 0; i < PIPELINED; i++) { // 50 MiB each, from the start: 40 MiB are there
          out.write(RawKafka.fetch(i, "big", 0, 50 << 20, 0));
        }
        out.flush();
      }
      // Once the sockets' buffers are full, each hog holds an answer it does not read and waits for more.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while ((broker.metric("brook_outbound_waiting_senders") < hogs.size() || held() < hogs.size() * (SHARE / 2))
          && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertThat(broker.metric("brook_outbound_waiting_senders")).as("each hog's further fetches wait for memory")
          .isGreaterThanOrEqualTo(hogs.size());
      assertThat(held()).as("answer bytes held for the hogs: counted, within the broker's bound")
          .isGreaterThanOrEqualTo(hogs.size() * (SHARE / 2)).isLessThanOrEqualTo(LIMIT);

      // Another Kafka client produces and fetches as if nothing were wrong.
      try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig());
          KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig())) {
        for (int i = 0; i < 10; i++) {
          producer.send(new ProducerRecord<>("small", 0, "k" + i, "v" + i)).get(60, TimeUnit.SECONDS);
        }
        TopicPartition tp = new TopicPartition("small", 0);
        consumer.assign(List.of(tp));
        consumer.seekToBeginning(List.of(tp));
        List<String> values = new ArrayList<>();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (values.size() < 10 && System.nanoTime() < until) {
          for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
            values.add(r.value());
          }
        }
        assertThat(values).containsExactly("v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9");
      }
      assertThat(held()).as("still within the broker's bound").isLessThanOrEqualTo(LIMIT);

      // A hog that starts reading gets every answer, in order, each within its share (bar the first batch).
      KafkaWire reader = hogs.remove(0);
      for (int i = 0; i < PIPELINED; i++) {
        FetchResponseData answer = (FetchResponseData) RawKafka.read(reader, ApiKeys.FETCH, RawKafka.FETCH_V, i);
        FetchResponseData.PartitionData p = answer.responses().get(0).partitions().get(0);
        assertThat(p.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(p.highWatermark()).isEqualTo(MIB_BATCHES * 10L);
        assertThat(((org.apache.kafka.common.record.internal.MemoryRecords) p.records()).sizeInBytes())
            .as("answer " + i).isPositive().isLessThanOrEqualTo((int) SHARE + (1 << 20));
      }
      reader.close();
    } finally {
      for (KafkaWire hog : hogs) {
        hog.close();
      }
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (held() > (1 << 20) && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertThat(held()).as("everything given back once the hogs are gone (the scrape's own reservation aside)")
        .isLessThanOrEqualTo(1 << 20);
    assertThat(broker.metric("brook_outbound_waiting_senders")).isZero();
  }

  private static Properties producerConfig() {
    Properties p = new Properties();
    p.put("bootstrap.servers", broker.kafkaAddress());
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", StringSerializer.class.getName());
    return p;
  }

  private static Properties consumerConfig() {
    Properties p = new Properties();
    p.put("bootstrap.servers", broker.kafkaAddress());
    p.put("key.deserializer", StringDeserializer.class.getName());
    p.put("value.deserializer", StringDeserializer.class.getName());
    p.put("enable.auto.commit", "false");
    return p;
  }
}
