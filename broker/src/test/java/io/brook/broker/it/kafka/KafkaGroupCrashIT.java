package io.brook.broker.it.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.it.BrokerProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of the broker while kafka-clients consumers of one classic group commit after every poll,
 * and again while a third member's join is rebalancing the group. After each restart (same ports) the
 * consumers rejoin by themselves; the offsets committed before a kill are never lower after it, and
 * every record produced is consumed by some member (at least once: none skipped).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class KafkaGroupCrashIT {
  private static final String TOPIC = "crashing";
  private static final String GROUP = "survivors";
  private static final int PARTITIONS = 4;
  private static final int RECORDS = 4_000;

  @TempDir Path dir;

  /** What the consumers saw and what their commits acknowledged, shared by their threads. */
  private final Set<String> seen = ConcurrentHashMap.newKeySet();
  private final Map<TopicPartition, Long> acknowledged = new ConcurrentHashMap<>();
  private final AtomicLong polled = new AtomicLong();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();

  @Test
  void committedOffsetsNeverGoBackAndNoRecordIsSkippedAcrossKillsDuringCommitsAndARebalance() throws Exception {
    int kafkaPort = freePort();
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"), "--set", "kafka.listen=127.0.0.1:" + kafkaPort,
        "--set", "group.initial.rebalance.delay.ms=0", "--set", "group.min.session.timeout.ms=1000")) {
      String bootstrap = "127.0.0.1:" + kafkaPort;
      try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
        admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get(30, TimeUnit.SECONDS);
      }
      produce(bootstrap);

      List<Thread> members = new ArrayList<>();
      members.add(member(bootstrap, "m1"));
      members.add(member(bootstrap, "m2"));
      awaitPolled(RECORDS / 4);

      // Kill 1: during a stream of commits.
      Map<TopicPartition, Long> before = Map.copyOf(acknowledged);
      broker.kill9();
      broker.restartOnSamePort();
      assertNotBehind(committed(bootstrap), before, "after the kill during commits");

      // Kill 2: while a third member's join rebalances the group.
      awaitPolled(RECORDS / 2);
      members.add(member(bootstrap, "m3"));
      Thread.sleep(300);
      before = Map.copyOf(acknowledged);
      broker.kill9();
      broker.restartOnSamePort();
      assertNotBehind(committed(bootstrap), before, "after the kill during a rebalance");

      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(150);
      while (seen.size() < RECORDS && failures.isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      stop.set(true);
      for (Thread t : members) {
        t.join(30_000);
      }
      assertThat(failures).as("consumer failures").isEmpty();
      assertThat(seen).as("records consumed by some member").hasSize(RECORDS);
      Map<TopicPartition, Long> end = committed(bootstrap);
      assertNotBehind(end, Map.copyOf(acknowledged), "at the end");
    }
  }

  private void produce(String bootstrap) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("acks", "all");
    p.put("linger.ms", 5);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
        new ByteArraySerializer())) {
      for (int i = 0; i < RECORDS; i++) {
        producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, null, ("r" + i).getBytes(StandardCharsets.UTF_8)));
      }
      producer.flush();
    }
  }

  /** A consumer thread: polls a few records at a time and commits them synchronously, through kills. */
  private Thread member(String bootstrap, String clientId) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("group.id", GROUP);
    p.put("group.protocol", "classic");
    p.put("client.id", clientId);
    p.put("enable.auto.commit", false);
    p.put("auto.offset.reset", "earliest");
    p.put("max.poll.records", 50);
    p.put("session.timeout.ms", 6_000);
    p.put("heartbeat.interval.ms", 500);
    p.put("max.poll.interval.ms", 20_000);
    p.put("reconnect.backoff.max.ms", 200);
    p.put("retry.backoff.ms", 100);
    p.put("default.api.timeout.ms", 20_000);
    Thread t = new Thread(() -> {
      try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
          new ByteArrayDeserializer())) {
        c.subscribe(List.of(TOPIC));
        while (!stop.get()) {
          ConsumerRecords<byte[], byte[]> records = c.poll(Duration.ofMillis(100));
          if (records.isEmpty()) {
            continue;
          }
          Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
          for (ConsumerRecord<byte[], byte[]> r : records) {
            seen.add(new String(r.value(), StandardCharsets.UTF_8));
            offsets.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
          }
          polled.addAndGet(records.count());
          try {
            c.commitSync(offsets, Duration.ofSeconds(20));
            offsets.forEach((tp, om) -> acknowledged.merge(tp, om.offset(), Math::max));
          } catch (org.apache.kafka.common.errors.RetriableException
              | org.apache.kafka.clients.consumer.CommitFailedException
              | org.apache.kafka.common.errors.RebalanceInProgressException e) {
            // Not acknowledged (the broker died, or the group rebalanced): the records come again.
          }
        }
      } catch (Throwable e) {
        failures.add(e);
      }
    }, "consumer-" + clientId);
    t.setDaemon(true);
    t.start();
    return t;
  }

  private void awaitPolled(long n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (polled.get() < n && failures.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(failures).as("consumer failures").isEmpty();
    assertThat(polled.get()).as("records polled").isGreaterThanOrEqualTo(n);
  }

  private static Map<TopicPartition, Long> committed(String bootstrap) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap, "default.api.timeout.ms", 30_000))) {
      Map<TopicPartition, Long> out = new HashMap<>();
      admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS)
          .forEach((tp, om) -> out.put(tp, om == null ? -1 : om.offset()));
      return out;
    }
  }

  private static int freePort() throws java.io.IOException {
    try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static void assertNotBehind(Map<TopicPartition, Long> now, Map<TopicPartition, Long> before, String when) {
    before.forEach((tp, offset) -> assertThat(now.getOrDefault(tp, -1L))
        .as("committed offset of %s %s (acknowledged before: %d)", tp, when, offset).isGreaterThanOrEqualTo(offset));
  }
}
