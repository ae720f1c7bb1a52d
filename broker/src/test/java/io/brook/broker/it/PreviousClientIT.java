package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.client.Header;
import io.brook.client.Serdes;
import io.brook.client.admin.BrookAdmin;
import io.brook.client.admin.NewGroup;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerConfig;
import io.brook.client.consumer.ConsumerRecord;
import io.brook.client.producer.BrookProducer;
import io.brook.client.producer.CompressionType;
import io.brook.client.producer.ProducerConfig;
import io.brook.protocol.v1.Record;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The previous release's Java client (built from git history by scripts/previous-client.sh, run in a JVM
 * of its own: it has the current client's package names) against the current broker process. What it
 * produces (listed records, encoded_records) the current clients read the same; what the current clients
 * produce (Kafka batches, compressed, from kafka-clients and from Brook's producer) it reads the same, by
 * its raw fetches (which ask for no batch version, so get version 1, or records for a batch over the
 * answer cap) and by its ack consumer.
 */
@Timeout(value = 900, unit = TimeUnit.SECONDS) // a cold tool cache builds the previous client first
class PreviousClientIT {
  static final long T = 1_700_000_000_000L;
  @TempDir static Path dir;
  static Path lib;
  static BrokerProcess broker;
  static Wire wire;
  static BrookAdmin admin;

  @BeforeAll
  static void start() throws Exception {
    lib = previousClient();
    broker = BrokerProcess.start(dir.resolve("data"));
    wire = new Wire(broker.channel());
    admin = BrookAdmin.create(broker.address());
  }

  @AfterAll
  static void stop() throws Exception {
    if (admin != null) {
      admin.close();
    }
    if (broker != null) {
      broker.close();
    }
  }

  /** The previous client's jars: scripts/previous-client.sh (cached in the tool cache after its first build). */
  static Path previousClient() throws Exception {
    Path root = BrokerProcess.jar().toAbsolutePath().getParent().getParent().getParent(); // broker/target/brook.jar
    Exec.Result r = run(List.of("bash", root.resolve("scripts/previous-client.sh").toString()), 600);
    assertThat(r.exitCode()).as("scripts/previous-client.sh failed:\n" + r.stderr()).isZero();
    List<String> out = r.stdout().lines().toList();
    return Path.of(out.get(out.size() - 1));
  }

  /** Runs the driver (src/test/resources/previous-client) on the previous client's jars; its stdout lines. */
  static List<String> previous(String... args) throws Exception {
    Path driver = Path.of(PreviousClientIT.class.getResource("/previous-client/PreviousClientDriver.java").toURI());
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", lib.resolve("*").toString(), driver.toString()));
    command.addAll(Arrays.asList(args));
    Exec.Result r = run(command, 120);
    assertThat(r.exitCode()).as("the previous client (" + String.join(" ", args) + ") failed:\n" + r.stderr()).isZero();
    return r.stdout().lines().toList();
  }

  @Test
  void whatThePreviousProducerWritesTheCurrentClientsReadTheSame() throws Exception {
    wire.create("from-previous", 1);
    assertThat(previous("produce", broker.address(), "from-previous"))
        .containsExactly("acked 0", "acked 1", "acked 2", "acked 3", "acked 4");
    List<String> expected = List.of(
        "0 " + T + " k0 old-0 [h=0]",
        "1 " + (T + 1) + " null old-1 []",
        "2 " + (T + 2) + " k2 old-2 [h=2]",
        "3 " + (T + 3) + " k3 old-3 []",
        "4 " + (T + 4) + " k4 old-4 [h=4]");
    assertThat(grpc(wire.readAll("from-previous", 0))).as("record Fetch").isEqualTo(expected);
    assertThat(currentConsumer("from-previous", 5)).as("the current Java consumer").isEqualTo(expected);
    assertThat(kafkaConsumer("from-previous", 5)).as("kafka-clients' consumer").isEqualTo(expected);
  }

  @Test
  void whatCurrentClientsWriteCompressedThePreviousClientReadsTheSame() throws Exception {
    String topic = "from-current";
    wire.create(topic, 1);
    kafkaProduce(topic, "zstd", List.of(
        new ProducerRecord<>(topic, 0, T, utf8("z0"), utf8("zstd zero"), List.of(new RecordHeader("h", utf8("a")))),
        new ProducerRecord<>(topic, 0, T + 1, null, utf8("zstd one")),
        new ProducerRecord<>(topic, 0, T - 5, new byte[0], new byte[0], List.of(new RecordHeader("e", utf8(""))))));
    kafkaProduce(topic, "gzip", List.of(new ProducerRecord<>(topic, 0, T + 2, utf8("g0"), utf8("gzip zero")),
        new ProducerRecord<>(topic, 0, T + 3, null, utf8("gzip one"))));
    try (BrookProducer<byte[], byte[]> p = new BrookProducer<>(ProducerConfig.builder().broker(broker.address())
        .compression(CompressionType.LZ4).linger(Duration.ofMillis(200)).build(), Serdes.bytesSerializer(),
        Serdes.bytesSerializer())) {
      p.send(new io.brook.client.producer.ProducerRecord<>(topic, 0, T + 4, utf8("b0"), utf8("brook lz4 zero"),
          List.of(Header.of("x", "1"))));
      p.send(new io.brook.client.producer.ProducerRecord<>(topic, 0, T + 5, null, utf8("brook lz4 one"), List.of()));
      p.flush();
    }
    // Large records in one small zstd batch: converted to version 1 it is over the answer cap, so it
    // comes to the previous client as records, which it reads too.
    List<ProducerRecord<byte[], byte[]>> large = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      byte[] v = new byte[512 << 10];
      Arrays.fill(v, (byte) ('a' + i));
      large.add(new ProducerRecord<>(topic, 0, T + 10 + i, utf8("big" + i), v));
    }
    kafkaProduce(topic, "zstd", large);

    List<String> expected = grpc(wire.readAll(topic, 0));
    assertThat(expected).hasSize(15);
    assertThat(expected.subList(0, 7)).containsExactly(
        "0 " + T + " z0 zstd zero [h=a]",
        "1 " + (T + 1) + " null zstd one []",
        "2 " + (T - 5) + "   [e=]",
        "3 " + (T + 2) + " g0 gzip zero []",
        "4 " + (T + 3) + " null gzip one []",
        "5 " + (T + 4) + " b0 brook lz4 zero [x=1]",
        "6 " + (T + 5) + " null brook lz4 one []");
    assertThat(expected.get(14)).isEqualTo("14 " + (T + 17) + " big7 " + (512 << 10) + "xh []");

    assertThat(previous("consume", broker.address(), topic, "15")).as("the previous consumer").isEqualTo(expected);
    admin.createGroup(NewGroup.ackMode("previous-workers").withConfig("auto.offset.reset", "earliest"));
    assertThat(previous("ack", broker.address(), "previous-workers", topic, "15")).as("the previous ack consumer")
        .isEqualTo(expected);
  }

  static void kafkaProduce(String topic, String codec, List<ProducerRecord<byte[], byte[]>> records) {
    Properties p = new Properties();
    p.put("bootstrap.servers", broker.kafkaAddress());
    p.put("compression.type", codec);
    p.put("linger.ms", 200); // one batch
    p.put("batch.size", 16 << 20);
    p.put("buffer.memory", 64L << 20);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
        new ByteArraySerializer())) {
      records.forEach(producer::send);
      producer.flush();
    }
  }

  static List<String> currentConsumer(String topic, int count) {
    List<String> out = new ArrayList<>();
    try (BrookConsumer<byte[], byte[]> c = new BrookConsumer<>(ConsumerConfig.builder().broker(broker.address())
        .build(), Serdes.bytesDeserializer(), Serdes.bytesDeserializer())) {
      io.brook.client.TopicPartition tp = new io.brook.client.TopicPartition(topic, 0);
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      for (int i = 0; i < 100 && out.size() < count; i++) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          out.add(line(r.offset(), r.timestampMs(), r.key(), r.value(),
              r.headers().stream().map(h -> h.key() + "=" + text(h.value())).toList()));
        }
      }
    }
    return out;
  }

  static List<String> kafkaConsumer(String topic, int count) {
    Properties p = new Properties();
    p.put("bootstrap.servers", broker.kafkaAddress());
    p.put("enable.auto.commit", false);
    List<String> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      TopicPartition tp = new TopicPartition(topic, 0);
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      for (int i = 0; i < 100 && out.size() < count; i++) {
        c.poll(Duration.ofMillis(200)).forEach(r -> {
          List<String> headers = new ArrayList<>();
          r.headers().forEach(h -> headers.add(h.key() + "=" + text(h.value())));
          out.add(line(r.offset(), r.timestamp(), r.key(), r.value(), headers));
        });
      }
    }
    return out;
  }

  static List<String> grpc(List<Record> records) {
    return records.stream().map(r -> line(r.getOffset(), r.getTimestampMs(),
        r.hasKey() ? r.getKey().toByteArray() : null, r.getValue().toByteArray(),
        r.getHeadersList().stream().map(h -> h.getKey() + "=" + h.getValue().toStringUtf8()).toList())).toList();
  }

  /** A record as PreviousClientDriver prints it. */
  static String line(long offset, long timestamp, byte[] key, byte[] value, List<String> headers) {
    return offset + " " + timestamp + " " + (key == null ? "null" : text(key)) + " " + text(value) + " " + headers;
  }

  static String text(byte[] b) {
    if (b == null) {
      return "";
    }
    return b.length > 64 ? b.length + "x" + (char) b[0] : new String(b, StandardCharsets.UTF_8);
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Runs a command; the tool cache's place (BROOK_TOOLS_DIR, if set) is kept, as Exec drops BROOK_ variables. */
  static Exec.Result run(List<String> command, long timeoutS) throws IOException, InterruptedException {
    String tools = System.getenv("BROOK_TOOLS_DIR");
    ProcessBuilder pb = Exec.builder(command, tools == null ? Map.of() : Map.of("BROOK_TOOLS_DIR", tools), null,
        dir.resolve("exec"));
    return Exec.await(pb, pb.start(), timeoutS);
  }
}
