package io.brook.broker.it.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.it.BrokerProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * kill -9 of the broker while kafka-clients consumers of one group commit after every poll, and again
 * in the middle of the rebalance a third member's join starts, with each of Kafka's group protocols:
 * classic (JoinGroup/SyncGroup, the eager range assignor) and KIP-848 ({@code group.protocol=consumer}:
 * ConsumerGroupHeartbeat, the broker assigns). Records are produced at a steady pace through both kills,
 * so that commits are under way at each. After each restart (same ports) the consumers rejoin by
 * themselves; the offsets committed before a kill are never lower after it, every record produced is
 * consumed by some member (at least once: none skipped), and the group keeps its type through the kills
 * (Admin's describe: ConsumerGroupDescribe for a KIP-848 group).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class KafkaGroupCrashIT {
  private static final String TOPIC = "crashing";
  private static final String GROUP = "survivors";
  private static final int PARTITIONS = 4;
  private static final int RECORDS = 4_000;
  /** The producer's pace: a burst every 50 ms, about 5 s for all records, so both kills meet a stream. */
  private static final int BURST = 40;

  @TempDir Path dir;

  /** What was produced, what the consumers saw and what their commits acknowledged, shared by the threads. */
  private final Set<String> produced = ConcurrentHashMap.newKeySet();
  private final Set<String> seen = ConcurrentHashMap.newKeySet();
  private final Map<TopicPartition, Long> acknowledged = new ConcurrentHashMap<>();
  private final AtomicLong polled = new AtomicLong();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final List<Throwable> failures = new CopyOnWriteArrayList<>();
  /** Armed once the third member subscribes: the first revocation after it holds its member until the kill. */
  private volatile boolean joinArmed;
  private final CountDownLatch revoking = new CountDownLatch(1);
  private final CountDownLatch killed = new CountDownLatch(1);

  /** The group's protocol, as kafka-clients' group.protocol names it. */
  private String protocol;

  @ParameterizedTest(name = "group.protocol={0}")
  @ValueSource(strings = {"classic", "consumer"})
  void committedOffsetsNeverGoBackAndNoRecordIsSkippedAcrossKillsDuringCommitsAndARebalance(String protocol)
      throws Exception {
    this.protocol = protocol;
    GroupType type = protocol.equals("consumer") ? GroupType.CONSUMER : GroupType.CLASSIC;
    int kafkaPort = freePort();
    // KIP-848 members heartbeat at the broker's interval: 300 ms, so that they hear of the third member's
    // join, and of the restarted broker, within a second.
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"), "--set", "kafka.listen=127.0.0.1:" + kafkaPort,
        "--set", "group.initial.rebalance.delay.ms=0", "--set", "group.min.session.timeout.ms=1000",
        "--set", "group.consumer.heartbeat.interval.ms=300", "--set", "group.consumer.session.timeout.ms=6000")) {
      String bootstrap = "127.0.0.1:" + kafkaPort;
      try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
        admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get(30, TimeUnit.SECONDS);
      }
      Thread producer = producer(bootstrap);

      List<Thread> members = new ArrayList<>();
      members.add(member(bootstrap, "m1"));
      members.add(member(bootstrap, "m2"));
      awaitPolled(RECORDS / 4);
      assertThat(typeOf(bootstrap)).as("the group's type before the kills").isEqualTo(type);

      // Kill 1: during the stream of commits.
      Map<TopicPartition, Long> before = Map.copyOf(acknowledged);
      broker.kill9();
      broker.restartOnSamePort();
      assertNotBehind(committed(bootstrap), before, "after the kill during commits");

      // Kill 2: a third member joins; the kill comes while a member of the two gives up partitions for it (its
      // rebalance listener's onPartitionsRevoked, held until the broker is dead): the rebalance is under way.
      awaitPolled(RECORDS / 2);
      joinArmed = true;
      members.add(member(bootstrap, "m3"));
      assertThat(revoking.await(60, TimeUnit.SECONDS)).as("a member gave up partitions for the third one").isTrue();
      before = Map.copyOf(acknowledged);
      broker.kill9();
      killed.countDown();
      broker.restartOnSamePort();
      assertNotBehind(committed(bootstrap), before, "after the kill during a rebalance");

      producer.join(120_000);
      assertThat(producer.isAlive()).as("the producer finished").isFalse();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (!seen.containsAll(produced) && failures.isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      stop.set(true);
      for (Thread t : members) {
        t.join(30_000);
      }
      assertThat(failures).as("producer and consumer failures").isEmpty();
      assertThat(produced).as("records produced (acknowledged)").hasSize(RECORDS);
      assertThat(seen).as("records consumed by some member").containsAll(produced);
      Map<TopicPartition, Long> end = committed(bootstrap);
      assertNotBehind(end, Map.copyOf(acknowledged), "at the end");
      assertThat(typeOf(bootstrap)).as("the group's type after the kills").isEqualTo(type);
    }
  }

  /** Produces RECORDS records in bursts, through the kills (the producer retries until the broker is back). */
  private Thread producer(String bootstrap) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("acks", "all");
    p.put("linger.ms", 5);
    p.put("reconnect.backoff.max.ms", 200);
    p.put("retry.backoff.ms", 100);
    Thread t = new Thread(() -> {
      try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
          new ByteArraySerializer())) {
        for (int i = 0; i < RECORDS; i++) {
          String value = "r" + i;
          producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, null, value.getBytes(StandardCharsets.UTF_8)),
              (meta, e) -> {
                if (e == null) {
                  produced.add(value);
                } else {
                  failures.add(e);
                }
              });
          if (i % BURST == BURST - 1) {
            Thread.sleep(50);
          }
        }
        producer.flush();
      } catch (Throwable e) {
        failures.add(e);
      }
    }, "producer");
    t.setDaemon(true);
    t.start();
    return t;
  }

  /** A consumer thread: polls a few records at a time and commits them synchronously, through kills. */
  private Thread member(String bootstrap, String clientId) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("group.id", GROUP);
    p.put("group.protocol", protocol);
    p.put("client.id", clientId);
    p.put("enable.auto.commit", false);
    p.put("auto.offset.reset", "earliest");
    p.put("max.poll.records", 50);
    if (protocol.equals("classic")) { // a KIP-848 member takes both from the broker, and refuses them as settings
      p.put("session.timeout.ms", 6_000);
      p.put("heartbeat.interval.ms", 500);
    }
    p.put("max.poll.interval.ms", 20_000);
    p.put("reconnect.backoff.max.ms", 200);
    p.put("retry.backoff.ms", 100);
    p.put("default.api.timeout.ms", 20_000);
    Thread t = new Thread(() -> {
      try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
          new ByteArrayDeserializer())) {
        c.subscribe(List.of(TOPIC), new HoldRevocationUntilKilled());
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
          } catch (RetriableException | CommitFailedException | RebalanceInProgressException e) {
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

  /** Once armed, the first revocation tells the test and waits for the broker's kill before it returns. */
  private final class HoldRevocationUntilKilled implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      if (joinArmed && !partitions.isEmpty() && revoking.getCount() > 0) {
        revoking.countDown();
        try {
          killed.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {}
  }

  private void awaitPolled(long n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (polled.get() < n && failures.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(failures).as("producer and consumer failures").isEmpty();
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

  /**
   * The group's type as Admin describes it: for a KIP-848 group through ConsumerGroupDescribe (Admin falls
   * back to DescribeGroups only for a group that API does not know).
   */
  private static GroupType typeOf(String bootstrap) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap, "default.api.timeout.ms", 30_000))) {
      return admin.describeConsumerGroups(List.of(GROUP)).describedGroups().get(GROUP).get(30, TimeUnit.SECONDS).type();
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
