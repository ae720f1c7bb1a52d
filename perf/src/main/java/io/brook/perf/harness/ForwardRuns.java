package io.brook.perf.harness;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The forward workload (issue 28, D72): a prefilled topic copied into a topic of the shared Kafka 4.3.1.
 * brook-forward: the records are produced into a fresh Brook broker first, which is then started again with
 * a forward route to Kafka (routes are read at start), and the route drains the topic. kafka-loop: the same
 * records in a topic of the same Kafka, drained by {@link ForwardLoop} (a kafka-clients consumer -> producer
 * process, acks=all, idempotent, commit after the acknowledgement). Both targets are created beforehand
 * with message.timestamp.type=LogAppendTime, so that Kafka stamps each copy with the time it appended it:
 * the throughput is the records over the span from the first copy's append to the last's, the same clock
 * for both. CPU from the forwarder's start (Brook's ready line; the loop's "ready" line) to the last copy:
 * Brook (reads and sends) or the loop process, and Kafka (appends; for the loop it also serves the reads).
 */
final class ForwardRuns {
  private ForwardRuns() {}

  static void run(Runner runner, Systems systems, Workload w, String system, Run run) throws Exception {
    Server kafka = systems.client("kafka").server();
    String topic = "perf-" + w.name() + "-" + Long.toString(System.currentTimeMillis(), 36);
    String target = topic + "-copy";
    try (Admin kafkaAdmin = ForwardKit.admin(kafka.address())) {
      ForwardKit.createTopic(kafkaAdmin, target, w.partitions(), Map.of("message.timestamp.type", "LogAppendTime"));
      try {
        if (system.equals("brook-forward")) {
          brook(systems, w, kafka, topic, target, run);
        } else {
          loop(systems, w, kafka, kafkaAdmin, topic, target, run);
        }
      } finally {
        kafkaAdmin.deleteTopics(List.of(target, topic));
      }
    }
  }

  private static void brook(Systems systems, Workload w, Server kafka, String topic, String target, Run run)
      throws Exception {
    BrookServer brook = (BrookServer) systems.freshServer("brook-kafka", "forward");
    try {
      brook.start();
      try (Admin a = ForwardKit.admin(brook.kafkaBootstrap())) {
        ForwardKit.createTopic(a, topic, w.partitions(), Map.of());
      }
      prefill(brook.kafkaBootstrap(), topic, w);
      brook.stop();
      Path config = brook.dir.resolve("forward.properties");
      String r = "forward.perf.";
      Files.writeString(config, String.join("\n", r + "source=" + topic, r + "target=" + target,
          r + "bootstrap.servers=" + kafka.address(), r + "create.target=false", ""));
      brook.config(config);
      brook.start();
      measure(w, kafka, target, brook.pid(), run);
    } finally {
      systems.discard(brook);
    }
  }

  private static void loop(Systems systems, Workload w, Server kafka, Admin kafkaAdmin, String topic, String target,
      Run run) throws Exception {
    ForwardKit.createTopic(kafkaAdmin, topic, w.partitions(), Map.of());
    prefill(kafka.address(), topic, w);
    Path log = kafka.dir.resolveSibling(topic + ".forward-loop.log");
    Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xms1g",
        "-Xmx1g", "-cp", System.getProperty("java.class.path"), ForwardLoop.class.getName(), kafka.address(),
        kafka.address(), topic, target, topic + "-loop", "perf-loop").redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!Files.readString(log).contains("forward-loop: ready")) {
        if (!p.isAlive() || System.nanoTime() > deadline) {
          throw new IllegalStateException("ForwardLoop did not start: " + Files.readString(log));
        }
        Thread.sleep(20);
      }
      measure(w, kafka, target, p.pid(), run);
      if (!run.ok) { // what the loop said (a failure it retried) is the reason to look at
        List<String> lines = Files.readAllLines(log);
        run.fail("the loop's last lines: " + String.join(" | ", lines.subList(Math.max(0, lines.size() - 5),
            lines.size())));
      }
    } finally {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** From now (the forwarder started) until Kafka's target holds every record; the figures into run. */
  private static void measure(Workload w, Server kafka, String target, long forwarder, Run run) throws Exception {
    double kafkaCpu = kafka.cpuSeconds();
    double fwdCpu = io.brook.perf.ProcessCpu.seconds(forwarder);
    long t0 = System.nanoTime();
    long deadline = t0 + TimeUnit.SECONDS.toNanos(w.timeoutSeconds());
    long copied = 0;
    try (Admin a = ForwardKit.admin(kafka.address())) {
      while (System.nanoTime() < deadline) {
        copied = Math.max(0, ForwardKit.sum(ForwardKit.endOffsets(a, target, w.partitions())));
        if (copied >= w.records()) {
          break;
        }
        Thread.sleep(50);
      }
    }
    double fwd = io.brook.perf.ProcessCpu.seconds(forwarder) - fwdCpu;
    double kafkaUsed = kafka.cpuSeconds() - kafkaCpu;
    double wall = (System.nanoTime() - t0) / 1e9;
    if (copied < w.records()) {
      run.fail("Kafka's target holds " + copied + " of " + w.records() + " records after " + w.timeoutSeconds() + " s");
      return;
    }
    if (copied > w.records()) {
      run.fail(copied - w.records() + " records copied twice");
    }
    long[] span = appendSpan(kafka.address(), target, w.partitions());
    double seconds = Math.max(1, span[1] - span[0]) / 1000.0;
    run.values.put("records_per_s", w.records() / seconds);
    run.values.put("mb_per_s", w.records() * (double) w.recordSize() / seconds / 1e6);
    run.values.put("drain_s", wall);
    run.values.put("cpu_us_per_record", (fwd + kafkaUsed) * 1e6 / w.records());
    run.values.put("forwarder_cpu_us_per_record", fwd * 1e6 / w.records());
    run.values.put("kafka_cpu_us_per_record", kafkaUsed * 1e6 / w.records());
    run.values.put("broker_cpu_s", kafkaUsed + (run.system.equals("brook-forward") ? fwd : 0));
  }

  /** The earliest first and the latest last append time (LogAppendTime) of the topic's partitions. */
  static long[] appendSpan(String bootstrap, String topic, int partitions) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "1");
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
      for (int i = 0; i < partitions; i++) {
        TopicPartition tp = new TopicPartition(topic, i);
        c.assign(List.of(tp));
        long end = c.endOffsets(List.of(tp)).get(tp);
        if (end == 0) {
          continue;
        }
        for (long at : new long[] {0, end - 1}) {
          c.seek(tp, at);
          for (int tries = 0; tries < 100; tries++) {
            var rs = c.poll(Duration.ofMillis(100));
            if (!rs.isEmpty()) {
              ConsumerRecord<byte[], byte[]> r = rs.iterator().next();
              first = Math.min(first, r.timestamp());
              last = Math.max(last, r.timestamp());
              break;
            }
          }
        }
      }
    }
    return new long[] {first, last};
  }

  /** The workload's records (ForwardKit.record: key, headers, own timestamp) into the topic, all acknowledged. */
  static void prefill(String bootstrap, String topic, Workload w) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, "262144");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    AtomicLong failed = new AtomicLong();
    AtomicReference<Exception> first = new AtomicReference<>();
    long base = System.currentTimeMillis();
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      for (int seq = 0; seq < w.records(); seq++) {
        producer.send(ForwardKit.record(topic, w.partitions(), seq, base), (m, e) -> {
          if (e != null) {
            failed.incrementAndGet();
            first.compareAndSet(null, e);
          }
        });
      }
      producer.flush();
    }
    if (failed.get() > 0) {
      throw new IllegalStateException("prefill: " + failed.get() + " records failed, first: " + first.get());
    }
  }
}
