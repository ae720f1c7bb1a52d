package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.brook.protocol.v1.Header;
import io.brook.protocol.v1.Record;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-clients 4.3.1, unmodified, producing and fetching on the real broker process, and the same
 * records seen through gRPC at the same offsets.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class KafkaProduceFetchIT {
  @TempDir static Path dir;
  static BrokerProcess broker;
  static Wire wire;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
    wire = new Wire(broker.channel());
  }

  @AfterAll
  static void stop() throws Exception {
    broker.close();
  }

  static String bootstrap() {
    return "127.0.0.1:" + broker.kafkaPort();
  }

  static KafkaProducer<byte[], byte[]> producer(Map<String, Object> extra) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap());
    p.put("acks", "all");
    p.put("linger.ms", 5);
    p.put("delivery.timeout.ms", 30_000);
    p.put("request.timeout.ms", 10_000);
    p.putAll(extra);
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  static KafkaConsumer<byte[], byte[]> consumer() {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap());
    p.put("enable.auto.commit", false);
    p.put("auto.offset.reset", "none");
    return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  static List<ConsumerRecord<byte[], byte[]>> readAll(TopicPartition tp, int expected) {
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c = consumer()) {
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (out.size() < expected && System.nanoTime() < deadline) {
        c.poll(Duration.ofMillis(200)).forEach(out::add);
      }
    }
    return out;
  }

  @ParameterizedTest
  @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
  void anIdempotentProducerWritesWhatAConsumerAndAGrpcFetchReadBackAtTheSameOffsets(String codec) throws Exception {
    String topic = "kp-" + codec;
    wire.create(topic, 2);
    int n = 500;
    List<RecordMetadata> acked = new ArrayList<>();
    try (KafkaProducer<byte[], byte[]> producer = producer(Map.of("compression.type", codec))) {
      List<Future<RecordMetadata>> sends = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, 1, 1_700_000_000_000L + i,
            ("k" + i).getBytes(StandardCharsets.UTF_8), ("value-" + i).getBytes(StandardCharsets.UTF_8),
            List.of(new RecordHeader("h", ("x" + i).getBytes(StandardCharsets.UTF_8))));
        sends.add(producer.send(r));
      }
      for (Future<RecordMetadata> f : sends) {
        acked.add(f.get(60, TimeUnit.SECONDS));
      }
    }
    for (int i = 0; i < n; i++) {
      assertThat(acked.get(i).offset()).as("offsets are contiguous from 0").isEqualTo(i);
    }
    List<ConsumerRecord<byte[], byte[]>> read = readAll(new TopicPartition(topic, 1), n);
    assertThat(read).hasSize(n);
    List<Record> grpc = wire.readAll(topic, 1);
    assertThat(grpc).hasSize(n);
    for (int i = 0; i < n; i++) {
      ConsumerRecord<byte[], byte[]> k = read.get(i);
      assertThat(k.offset()).isEqualTo(i);
      assertThat(new String(k.key(), StandardCharsets.UTF_8)).isEqualTo("k" + i);
      assertThat(new String(k.value(), StandardCharsets.UTF_8)).isEqualTo("value-" + i);
      assertThat(k.timestamp()).isEqualTo(1_700_000_000_000L + i);
      assertThat(new String(k.headers().lastHeader("h").value(), StandardCharsets.UTF_8)).isEqualTo("x" + i);
      Record g = grpc.get(i);
      assertThat(g.getOffset()).isEqualTo(i);
      assertThat(g.getKey().toStringUtf8()).isEqualTo("k" + i);
      assertThat(g.getValue().toStringUtf8()).isEqualTo("value-" + i);
      assertThat(g.getTimestampMs()).isEqualTo(1_700_000_000_000L + i);
      assertThat(g.getHeaders(0).getValue().toStringUtf8()).isEqualTo("x" + i);
    }
  }

  @Test
  void recordsProducedOverGrpcReadOverKafkaWithKeysHeadersAndTimestamps() {
    wire.create("from-grpc", 1);
    Record r = Record.newBuilder().setKey(ByteString.copyFromUtf8("key")).setValue(ByteString.copyFromUtf8("v"))
        .addHeaders(Header.newBuilder().setKey("h1").setValue(ByteString.copyFromUtf8("one")))
        .setTimestampMs(1_650_000_000_000L).build();
    wire.produce("from-grpc", 0, List.of(Wire.value("first"), r));
    List<ConsumerRecord<byte[], byte[]>> read = readAll(new TopicPartition("from-grpc", 0), 2);
    assertThat(read).hasSize(2);
    assertThat(read.get(0).key()).isNull();
    assertThat(new String(read.get(0).value(), StandardCharsets.UTF_8)).isEqualTo("first");
    assertThat(read.get(1).offset()).isEqualTo(1);
    assertThat(new String(read.get(1).key(), StandardCharsets.UTF_8)).isEqualTo("key");
    assertThat(read.get(1).timestamp()).isEqualTo(1_650_000_000_000L);
    assertThat(new String(read.get(1).headers().lastHeader("h1").value(), StandardCharsets.UTF_8)).isEqualTo("one");
  }

  @Test
  void offsetsForTimesFindsTheFirstRecordAtOrAfterATime() throws Exception {
    wire.create("kt", 1);
    try (KafkaProducer<byte[], byte[]> producer = producer(Map.of())) {
      for (int i = 0; i < 10; i++) {
        producer.send(new ProducerRecord<>("kt", 0, 1_000_000L * (i + 1), null, new byte[] {(byte) i})).get();
      }
    }
    TopicPartition tp = new TopicPartition("kt", 0);
    try (KafkaConsumer<byte[], byte[]> c = consumer()) {
      Map<TopicPartition, OffsetAndTimestamp> at = c.offsetsForTimes(Map.of(tp, 4_500_000L));
      assertThat(at.get(tp).offset()).isEqualTo(4);
      assertThat(at.get(tp).timestamp()).isEqualTo(5_000_000L);
      c.assign(List.of(tp));
      c.seek(tp, at.get(tp).offset());
      List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (got.size() < 6 && System.nanoTime() < deadline) {
        c.poll(Duration.ofMillis(200)).forEach(got::add);
      }
      assertThat(got).extracting(ConsumerRecord::offset).containsExactly(4L, 5L, 6L, 7L, 8L, 9L);
    }
  }

  @Test
  void acksZeroGetsNoAnswerYetTheRecordsLand() throws Exception {
    wire.create("k-acks0", 1);
    try (KafkaProducer<byte[], byte[]> producer = producer(Map.of("acks", "0", "enable.idempotence", false))) {
      for (int i = 0; i < 100; i++) {
        producer.send(new ProducerRecord<>("k-acks0", 0, null, ("v" + i).getBytes(StandardCharsets.UTF_8)));
      }
      producer.flush();
    }
    List<ConsumerRecord<byte[], byte[]>> read = readAll(new TopicPartition("k-acks0", 0), 100);
    assertThat(read).hasSize(100);
  }
}
