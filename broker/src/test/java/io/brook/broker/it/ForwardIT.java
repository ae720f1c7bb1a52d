package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Store and forward (D68) between two real broker processes: the source Brook forwards a route into a
 * second Brook serving Kafka's protocol (the target "cluster"; make test's forward-check runs the same
 * against Apache Kafka 4.3.1). Checks what arrives (keys, values, headers, timestamps, origin headers,
 * partitions), the cursor, and a target that goes down and comes back.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ForwardIT {
  @TempDir Path dir;
  BrokerProcess source;
  BrokerProcess target;
  int targetKafkaPort;

  @AfterEach
  void stop() throws Exception {
    if (source != null) {
      source.close();
    }
    if (target != null) {
      target.close();
    }
  }

  void startBoth(String... routeLines) throws Exception {
    targetKafkaPort = BrokerStartIT.freePort();
    target = BrokerProcess.start(dir.resolve("target"), "--set", "kafka.listen=127.0.0.1:" + targetKafkaPort);
    Path config = dir.resolve("source.properties");
    List<String> lines = new ArrayList<>();
    for (String l : routeLines) {
      lines.add(l.replace("TARGET", "127.0.0.1:" + targetKafkaPort));
    }
    Files.write(config, lines);
    source = BrokerProcess.start(dir.resolve("source"), "--config", config.toString());
  }

  @Test
  void forwardsEveryRecordWithItsOriginToTheSamePartitionAndCommitsTheCursor() throws Exception {
    startBoth("forward.orders.source=orders", "forward.orders.target=central-{topic}",
        "forward.orders.bootstrap.servers=TARGET", "forward.orders.kafka.linger.ms=0");
    createTopic(source, "orders", 3);
    List<ProducerRecord<byte[], byte[]>> sent = produce(source, "orders", 300, 3);

    List<ConsumerRecord<byte[], byte[]>> got = readAll(target, "central-orders", 300);
    assertThat(partitionsOf(target, "central-orders")).isEqualTo(3); // created with the source's count
    Map<String, ConsumerRecord<byte[], byte[]>> byOrigin = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : got) {
      assertThat(header(r, "brook.origin.topic")).isEqualTo("orders");
      assertThat(Integer.parseInt(header(r, "brook.origin.partition"))).isEqualTo(r.partition());
      assertThat(header(r, "brook.origin.cluster")).hasSize(22);
      byOrigin.put(r.partition() + "/" + header(r, "brook.origin.offset"), r);
    }
    assertThat(got).hasSize(300); // no duplicate when nothing failed
    assertThat(byOrigin).hasSize(300);
    Map<Integer, Long> nextOffset = new HashMap<>();
    for (ProducerRecord<byte[], byte[]> s : sent) {
      long offset = nextOffset.merge(s.partition(), 1L, Long::sum) - 1;
      ConsumerRecord<byte[], byte[]> r = byOrigin.get(s.partition() + "/" + offset);
      assertThat(r).as("origin %s/%s", s.partition(), offset).isNotNull();
      assertThat(r.key()).isEqualTo(s.key());
      assertThat(r.value()).isEqualTo(s.value());
      assertThat(r.timestamp()).isEqualTo(s.timestamp());
      assertThat(header(r, "app")).isEqualTo(new String(s.headers().lastHeader("app").value(), StandardCharsets.UTF_8));
    }
    assertInOriginOrder(got);
    awaitCursor(source, "__forward.orders", "orders", 3, nextOffset);
  }

  @Test
  void aTargetWithFewerPartitionsGetsRecordsByKeyAsKafkasPartitionerWould() throws Exception {
    startBoth("forward.k.source=keyed", "forward.k.target=keyed", "forward.k.bootstrap.servers=TARGET");
    createTopic(target, "keyed", 2);
    createTopic(source, "keyed", 4);
    produce(source, "keyed", 200, 4);

    for (ConsumerRecord<byte[], byte[]> r : readAll(target, "keyed", 200)) {
      assertThat(r.partition()).as("key %s", new String(r.key(), StandardCharsets.UTF_8))
          .isEqualTo(Utils.toPositive(Utils.murmur2(r.key())) % 2);
    }
  }

  @Test
  void aTargetThatGoesDownAndComesBackGetsEveryRecordAndOnlyRetriesTwice() throws Exception {
    startBoth("forward.t.source=events", "forward.t.bootstrap.servers=TARGET", "forward.t.backoff.max.ms=1000",
        "forward.t.kafka.delivery.timeout.ms=3000", "forward.t.kafka.request.timeout.ms=1000",
        "forward.t.kafka.max.block.ms=1000");
    createTopic(source, "events", 2);
    produce(source, "events", 100, 2);
    readAll(target, "events", 100);

    target.stop();
    produce(source, "events", 200, 2);
    Thread.sleep(4_000); // at least one failed attempt: delivery.timeout.ms is 3 s
    target.restartOnSamePort(); // the same Kafka port (kafka.listen is fixed), the same data
    List<ConsumerRecord<byte[], byte[]>> got = readAll(target, "events", 300);

    Set<String> origins = new HashSet<>();
    for (ConsumerRecord<byte[], byte[]> r : got) {
      origins.add(header(r, "brook.origin.partition") + "/" + header(r, "brook.origin.offset"));
    }
    assertThat(origins).hasSize(300); // every record, perhaps some twice (same origin)
    assertInOriginOrder(got);
    awaitCursor(source, "__forward.t", "events", 2, Map.of(0, 150L, 1, 150L));
    assertThat(source.currentStartLog()).contains("Forward route t: Kafka failed");
  }

  @Test
  void aRoundWhoseFirstSendFindsNoTargetStopsThereInsteadOfWritingWhatComesAfter() throws Exception {
    startBoth("forward.m.source=idle", "forward.m.bootstrap.servers=TARGET", "forward.m.backoff.max.ms=500",
        "forward.m.kafka.max.block.ms=1000", "forward.m.kafka.delivery.timeout.ms=3000",
        "forward.m.kafka.request.timeout.ms=1000", "forward.m.kafka.metadata.max.idle.ms=5000",
        "forward.m.kafka.metadata.max.age.ms=1000");
    createTopic(source, "idle", 1);
    produce(source, "idle", 10, 1);
    readAll(target, "idle", 10);
    Thread.sleep(7_000); // idle past metadata.max.idle.ms: the producer forgets the topic, each send must look it up

    target.stop();
    produce(source, "idle", 100, 1);
    Thread.sleep(2_500); // sends wait 1 s each for metadata and fail while the target is down
    target.restartOnSamePort();
    List<ConsumerRecord<byte[], byte[]>> got = readAll(target, "idle", 110);

    assertInOriginOrder(got);
    awaitCursor(source, "__forward.m", "idle", 1, Map.of(0, 110L));
  }

  /**
   * Within each origin partition (each goes to one target partition here), the first time each origin
   * offset shows up is in increasing order, with no gap.
   */
  static void assertInOriginOrder(List<ConsumerRecord<byte[], byte[]>> got) {
    Map<Integer, Long> highest = new HashMap<>();
    Map<Integer, Set<Long>> seen = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : got) {
      int partition = Integer.parseInt(header(r, "brook.origin.partition"));
      long origin = Long.parseLong(header(r, "brook.origin.offset"));
      if (seen.computeIfAbsent(partition, p -> new HashSet<>()).add(origin)) {
        long before = highest.getOrDefault(partition, -1L);
        assertThat(origin).as("origin partition %s: new origin after %s", partition, before).isEqualTo(before + 1);
        highest.put(partition, origin);
      }
    }
  }

  static String header(ConsumerRecord<byte[], byte[]> r, String name) {
    Header h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  static Admin admin(BrokerProcess b) {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, b.kafkaAddress()));
  }

  static void createTopic(BrokerProcess b, String topic, int partitions) throws Exception {
    try (Admin admin = admin(b)) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }
  }

  static int partitionsOf(BrokerProcess b, String topic) throws Exception {
    try (Admin admin = admin(b)) {
      return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic).partitions()
          .size();
    }
  }

  /** {@code count} records with keys, an app header and set timestamps, spread over the partitions in turn. */
  static List<ProducerRecord<byte[], byte[]>> produce(BrokerProcess b, String topic, int count, int partitions) {
    List<ProducerRecord<byte[], byte[]>> sent = new ArrayList<>();
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
        b.kafkaAddress(), ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class))) {
      long t0 = System.currentTimeMillis() - 60_000;
      for (int i = 0; i < count; i++) {
        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, i % partitions, t0 + i,
            ("key-" + i).getBytes(StandardCharsets.UTF_8), ("value-" + i).getBytes(StandardCharsets.UTF_8));
        r.headers().add("app", ("h" + i).getBytes(StandardCharsets.UTF_8));
        p.send(r);
        sent.add(r);
      }
      p.flush();
    }
    return sent;
  }

  /** Every record of the topic from the start, once at least {@code atLeast} are there (then a moment more). */
  static List<ConsumerRecord<byte[], byte[]>> readAll(BrokerProcess b, String topic, int atLeast) throws Exception {
    List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
        b.kafkaAddress(), ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
        ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false))) { // the forwarder creates it
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      List<TopicPartition> tps = new ArrayList<>();
      while (tps.isEmpty() && System.nanoTime() < deadline) {
        c.partitionsFor(topic).forEach(pi -> tps.add(new TopicPartition(topic, pi.partition())));
        Thread.sleep(tps.isEmpty() ? 100 : 0);
      }
      c.assign(tps);
      c.seekToBeginning(tps);
      long quietUntil = Long.MAX_VALUE;
      while (System.nanoTime() < Math.min(deadline, quietUntil)) {
        c.poll(Duration.ofMillis(200)).forEach(got::add);
        if (got.size() >= atLeast && quietUntil == Long.MAX_VALUE) {
          quietUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
        }
      }
    }
    assertThat(got.size()).as("records read from %s", topic).isGreaterThanOrEqualTo(atLeast);
    return got;
  }

  /** Waits until the route's cursor group has committed {@code expected} (partition → offset). */
  static void awaitCursor(BrokerProcess b, String group, String topic, int partitions, Map<Integer, Long> expected)
      throws Exception {
    Map<Integer, Long> committed = new HashMap<>();
    try (Admin admin = admin(b)) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (System.nanoTime() < deadline) {
        committed.clear();
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
            .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
        offsets.forEach((tp, om) -> {
          if (tp.topic().equals(topic) && om != null) {
            committed.put(tp.partition(), om.offset());
          }
        });
        if (committed.equals(expected)) {
          return;
        }
        Thread.sleep(100);
      }
    }
    assertThat(committed).as("the cursor of %s", group).isEqualTo(expected);
  }
}
