package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * kafka-clients 4.3.1 consumers with group.protocol=classic on the real broker process: they share a
 * topic's partitions and rebalance when one joins, leaves or is killed; each record is committed
 * once in all; commitSync, commitAsync and a commit after a seek land in Brook's offsets, which
 * {@code bin/brook group describe} shows; a static member restarted within its session gets its
 * partitions back without a rebalance. The commit and static-member tests run with KIP-848 consumers
 * too (group.protocol=consumer), as the issue asks of both protocols.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class KafkaGroupClassicIT {
  static final int SESSION_MS = 6_000;
  static final long WAIT_S = 60;
  @TempDir static Path dir;
  static BrokerProcess broker;
  static String bootstrap;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"), "--set", "group.initial.rebalance.delay.ms=0",
        "--set", "group.min.session.timeout.ms=1000", "--set", "group.consumer.heartbeat.interval.ms=500");
    bootstrap = "127.0.0.1:" + broker.kafkaPort();
  }

  @AfterAll
  static void stop() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  /** The consumer settings every member of these tests uses (also the killed process's). */
  static Properties consumerProps(String group, String clientId, Map<String, Object> extra) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap != null ? bootstrap : System.getProperty("bootstrap", ""));
    p.put("group.id", group);
    p.put("group.protocol", "classic");
    p.put("client.id", clientId);
    p.put("enable.auto.commit", false);
    p.put("auto.offset.reset", "earliest");
    p.put("session.timeout.ms", SESSION_MS);
    p.put("heartbeat.interval.ms", 500);
    p.put("max.poll.interval.ms", 30_000);
    p.putAll(extra);
    if ("consumer".equals(p.get("group.protocol"))) { // KIP-848: the broker decides these, the client may not set them
      p.remove("session.timeout.ms");
      p.remove("heartbeat.interval.ms");
    }
    return p;
  }

  @Test
  void consumersShareATopicThroughJoinLeaveAndKillAndCommitEachRecordOnce() throws Exception {
    String topic = "orders";
    String group = "billing";
    createTopic(topic, 4);
    List<String> committed = Collections.synchronizedList(new ArrayList<>());
    Set<String> produced = new HashSet<>();
    Process killed = null;
    try (Member a = new Member(group, "a", topic, committed, Map.of());
        Member b = new Member(group, "b", topic, committed, Map.of())) {
      produce(topic, 0, 1000, produced);
      await("a and b share the 4 partitions", () -> a.assigned.size() == 2 && b.assigned.size() == 2);
      awaitAll(committed, produced);

      try (Member c = new Member(group, "c", topic, committed, Map.of())) {
        await("c joined: a, b and c share the partitions", () -> !c.assigned.isEmpty() && !a.assigned.isEmpty()
            && !b.assigned.isEmpty() && a.assigned.size() + b.assigned.size() + c.assigned.size() == 4);
        produce(topic, 1000, 2000, produced);
        awaitAll(committed, produced);

        a.close(); // LeaveGroup
        await("a left: b and c hold every partition", () -> b.assigned.size() + c.assigned.size() == 4
            && !b.assigned.isEmpty() && !c.assigned.isEmpty());
        produce(topic, 2000, 3000, produced);
        awaitAll(committed, produced);

        killed = startConsumerProcess(group, topic, committed);
        Process d = killed;
        await("the process's consumer got partitions", () -> b.assigned.size() + c.assigned.size() < 4
            && d.isAlive());
        produce(topic, 3000, 4000, produced);
        awaitAll(committed, produced); // the process is idle once all is committed: killing it loses nothing

        killed.destroyForcibly().waitFor(30, TimeUnit.SECONDS); // no LeaveGroup: only its session can end it
        await("its session timed out: b and c hold every partition again",
            () -> b.assigned.size() + c.assigned.size() == 4);
        produce(topic, 4000, 5000, produced);
        awaitAll(committed, produced);
      }
    } finally {
      if (killed != null) {
        killed.destroyForcibly();
      }
    }
    Map<String, Long> counts = committed.stream().collect(Collectors.groupingBy(v -> v, Collectors.counting()));
    assertThat(counts.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList())
        .as("records committed more than once").isEmpty();
    assertThat(counts.keySet()).isEqualTo(produced);

    CliGroupIT.Described described = describe(group);
    Map<Integer, String> ends = described.column(3);
    assertThat(described.column(2)).as("bin/brook group describe: every record committed").isEqualTo(ends);
    assertThat(ends.values().stream().mapToLong(Long::parseLong).sum()).isEqualTo(5000);
  }

  /** In both protocols: classic here, and KIP-848 (group.protocol=consumer), whose commits carry member epochs. */
  @ParameterizedTest
  @ValueSource(strings = {"classic", "consumer"})
  void commitSyncCommitAsyncAndACommitAfterASeekAreBrooksOffsets(String protocol) throws Exception {
    String topic = "ledger-" + protocol;
    String group = "audit-" + protocol;
    createTopic(topic, 2);
    produce(topic, 0, 200, new HashSet<>());
    TopicPartition p0 = new TopicPartition(topic, 0);
    TopicPartition p1 = new TopicPartition(topic, 1);
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProps(group, "auditor",
        Map.of("group.protocol", protocol)), new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
      int read = 0;
      while (read < 200 && System.nanoTime() < deadline) {
        read += consumer.poll(Duration.ofMillis(100)).count();
      }
      assertThat(read).isEqualTo(200);
      assertThat(consumer.assignment()).containsExactlyInAnyOrder(p0, p1);
      assertThat(groupType(group)).isEqualTo(GroupType.parse(protocol));

      consumer.commitSync();
      assertThat(consumer.committed(Set.of(p0, p1))).as("commitSync: the positions")
          .containsEntry(p0, new OffsetAndMetadata(consumer.position(p0)))
          .containsEntry(p1, new OffsetAndMetadata(consumer.position(p1)));

      AtomicInteger asyncDone = new AtomicInteger();
      List<Exception> asyncFailures = Collections.synchronizedList(new ArrayList<>());
      consumer.commitAsync(Map.of(p1, new OffsetAndMetadata(7, "async")), (offsets, e) -> {
        if (e != null) {
          asyncFailures.add(e);
        }
        asyncDone.incrementAndGet();
      });
      while (asyncDone.get() == 0 && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(50)); // the callback runs inside poll
      }
      assertThat(asyncFailures).isEmpty();
      assertThat(consumer.committed(Set.of(p1)).get(p1)).isEqualTo(new OffsetAndMetadata(7, "async"));

      consumer.seek(p0, 5);
      consumer.commitSync(Map.of(p0, new OffsetAndMetadata(consumer.position(p0))));
      assertThat(consumer.committed(Set.of(p0)).get(p0).offset()).as("seek then commit").isEqualTo(5);
    }
    CliGroupIT.Described described = describe(group);
    assertThat(described.column(2)).as("bin/brook group describe shows the same offsets")
        .isEqualTo(Map.of(0, "5", 1, "7"));
    long lag = described.column(3).entrySet().stream()
        .mapToLong(e -> Long.parseLong(e.getValue()) - Long.parseLong(described.column(2).get(e.getKey()))).sum();
    assertThat(broker.metric("brook_group_lag_records{group=\"" + group + "\",topic=\"" + topic + "\"}"))
        .as("/metrics lag of the group, from the same offsets").isEqualTo((double) lag);
  }

  /** In both protocols; a KIP-848 static member's close leaves for a while (epoch -2) and keeps its place. */
  @ParameterizedTest
  @ValueSource(strings = {"classic", "consumer"})
  void aStaticMemberRestartedWithinItsSessionGetsItsPartitionsBackWithoutARebalance(String protocol)
      throws Exception {
    String topic = "static-t-" + protocol;
    String group = "statics-" + protocol;
    createTopic(topic, 4);
    List<String> committed = Collections.synchronizedList(new ArrayList<>());
    Map<String, Object> s1Props = Map.of("group.instance.id", "s1", "group.protocol", protocol);
    Map<String, Object> s2Props = Map.of("group.instance.id", "s2", "group.protocol", protocol);
    try (Member s1 = new Member(group, "s1", topic, committed, s1Props)) {
      Set<TopicPartition> before;
      try (Member s2 = new Member(group, "s2", topic, committed, s2Props)) {
        await("both static members share the partitions", () -> s1.assigned.size() == 2 && s2.assigned.size() == 2);
        before = new HashSet<>(s2.assigned);
      } // a static member's close sends no LeaveGroup: it stays in the group until its session ends
      int s1Assignments = s1.assignments.get();
      try (Member again = new Member(group, "s2", topic, committed, s2Props)) {
        await("the restarted member has its partitions", () -> again.assigned.equals(before));
        assertThat(groupType(group)).isEqualTo(GroupType.parse(protocol));
        assertThat(s1.assignments.get()).as("s1 saw no rebalance").isEqualTo(s1Assignments);
        Set<String> produced = new HashSet<>();
        produce(topic, 0, 400, produced);
        awaitAll(committed, produced);
      }
    }
  }

  // --- helpers

  /** A consumer polling on its own thread, committing after each poll; what its commits covered goes to {@code committed}. */
  static final class Member implements AutoCloseable {
    final Set<TopicPartition> assigned = ConcurrentHashMap.newKeySet();
    final AtomicInteger assignments = new AtomicInteger();
    private final KafkaConsumer<String, String> consumer;
    private final Thread thread;
    private volatile boolean stopping;
    private boolean closed;

    Member(String group, String name, String topic, List<String> committed, Map<String, Object> extra) {
      consumer = new KafkaConsumer<>(consumerProps(group, name, extra), new StringDeserializer(), new StringDeserializer());
      thread = new Thread(() -> run(topic, committed), "consumer-" + name);
      thread.start();
    }

    private void run(String topic, List<String> committed) {
      consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
          assigned.removeAll(partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
          assigned.addAll(partitions);
          assignments.incrementAndGet();
        }
      });
      try {
        while (!stopping) {
          ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
          if (records.isEmpty()) {
            continue;
          }
          Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
          for (ConsumerRecord<String, String> r : records) {
            offsets.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
          }
          try {
            consumer.commitSync(offsets);
            records.forEach(r -> committed.add(r.value()));
          } catch (WakeupException e) {
            throw e;
          } catch (KafkaException e) { // a rebalance took them: their next owner reads them again
            continue;
          }
        }
      } catch (WakeupException e) {
        // closing
      } finally {
        consumer.close();
      }
    }

    @Override
    public void close() throws InterruptedException {
      if (closed) {
        return;
      }
      closed = true;
      stopping = true;
      consumer.wakeup();
      thread.join(TimeUnit.SECONDS.toMillis(WAIT_S));
      assertThat(thread.isAlive()).as("consumer closed").isFalse();
    }
  }

  /** ClassicConsumerMain in a JVM of its own; its committed records go to {@code committed} as it prints them. */
  static Process startConsumerProcess(String group, String topic, List<String> committed) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Dbootstrap=" + bootstrap, "-cp", System.getProperty("java.class.path"), ClassicConsumerMain.class.getName(),
        bootstrap, group, topic);
    pb.redirectError(dir.resolve("consumer-process.err").toFile());
    Process p = pb.start();
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line = in.readLine(); line != null; line = in.readLine()) {
          if (line.startsWith("R ")) {
            committed.add(line.substring(2));
          }
        }
      } catch (IOException e) {
        // killed
      }
    }, "consumer-process-reader");
    reader.setDaemon(true);
    reader.start();
    return p;
  }

  static void createTopic(String topic, int partitions) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(WAIT_S, TimeUnit.SECONDS);
    }
  }

  /** Records "v<i>" for i in [from, to), keyed so they spread over the partitions. */
  static void produce(String topic, int from, int to, Set<String> produced) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("acks", "all");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      for (int i : IntStream.range(from, to).toArray()) {
        producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i));
        produced.add("v" + i);
      }
      producer.flush();
    }
  }

  static void awaitAll(List<String> committed, Set<String> produced) throws InterruptedException {
    await("every record produced so far is committed", () -> {
      synchronized (committed) {
        return new HashSet<>(committed).containsAll(produced);
      }
    });
  }

  static void await(String what, BooleanSupplier check) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
    while (!check.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waited %d s for: %s\n--- broker:\n%s", WAIT_S, what, brokerLog())
          .isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  static String brokerLog() {
    try {
      return broker.currentStartLog();
    } catch (IOException e) {
      return e.toString();
    }
  }

  /** The group's type as Admin sees it (ConsumerGroupDescribe for a KIP-848 group). */
  static GroupType groupType(String group) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    try (Admin admin = Admin.create(p)) {
      return admin.describeConsumerGroups(List.of(group)).all().get(WAIT_S, TimeUnit.SECONDS).get(group).type();
    }
  }

  static CliGroupIT.Described describe(String group) throws Exception {
    Exec.Result r = Exec.run(CliIT.command("group", "describe", group),
        CliIT.withJava(Map.of("BROOK_BROKER", broker.address())), null, dir.resolve("runs"));
    assertThat(r.exitCode()).as("bin/brook group describe %s: %s", group, r).isZero();
    return CliGroupIT.parse(r.lines());
  }
}
