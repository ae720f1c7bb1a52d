package io.brook.perf.harness;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** kafka-clients helpers of the forward check and workload: topics, end offsets, cursors, whole-topic reads. */
final class ForwardKit {
  private ForwardKit() {}

  static Admin admin(String bootstrap) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
    return Admin.create(p);
  }

  static void createTopic(Admin admin, String topic, int partitions, Map<String, String> configs) throws Exception {
    admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(configs))).all()
        .get(30, TimeUnit.SECONDS);
  }

  /** Latest offsets of each partition; null when the broker did not answer in 10 s. */
  static Map<Integer, Long> endOffsets(Admin admin, String topic, int partitions) {
    Map<TopicPartition, OffsetSpec> q = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      q.put(new TopicPartition(topic, p), OffsetSpec.latest());
    }
    try {
      Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> r = admin.listOffsets(q).all()
          .get(10, TimeUnit.SECONDS);
      Map<Integer, Long> out = new HashMap<>();
      r.forEach((tp, info) -> out.put(tp.partition(), info.offset()));
      return out;
    } catch (Exception e) {
      return null;
    }
  }

  /** A group's committed offsets on the topic (absent partitions: 0); null when the broker did not answer. */
  static Map<Integer, Long> committed(Admin admin, String group, String topic, int partitions) {
    try {
      Map<TopicPartition, OffsetAndMetadata> r = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
          .get(10, TimeUnit.SECONDS);
      Map<Integer, Long> out = new HashMap<>();
      for (int p = 0; p < partitions; p++) {
        OffsetAndMetadata o = r.get(new TopicPartition(topic, p));
        out.put(p, o == null ? 0L : o.offset());
      }
      return out;
    } catch (Exception e) {
      return null;
    }
  }

  static long sum(Map<Integer, Long> m) {
    return m == null ? -1 : m.values().stream().mapToLong(Long::longValue).sum();
  }

  /** Records end − cursor over the partitions; -1 when either is unknown. */
  static long lag(Map<Integer, Long> end, Map<Integer, Long> cursor) {
    if (end == null || cursor == null) {
      return -1;
    }
    long lag = 0;
    for (var e : end.entrySet()) {
      lag += Math.max(0, e.getValue() - cursor.getOrDefault(e.getKey(), 0L));
    }
    return lag;
  }

  /**
   * Every record of the topic up to the end offsets of the start of the read, each partition in offset
   * order (assign, no group); returns how many were read.
   */
  static long readAll(String bootstrap, String topic, Consumer<ConsumerRecord<byte[], byte[]>> sink,
      Duration timeout) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
      List<TopicPartition> parts = new ArrayList<>();
      c.partitionsFor(topic, Duration.ofSeconds(30)).forEach(i -> parts.add(new TopicPartition(topic, i.partition())));
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts, Duration.ofSeconds(30));
      long n = 0;
      long deadline = System.nanoTime() + timeout.toNanos();
      while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("reading " + topic + " at " + bootstrap + ": not at its end offsets "
              + end + " after " + timeout.toSeconds() + " s");
        }
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
          if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))) {
            sink.accept(r);
            n++;
          }
        }
      }
      return n;
    }
  }

  /**
   * The check's record number {@code seq}: partition seq mod partitions, a key (none for every tenth), a
   * value of about 100 B, three headers (one key twice, one empty value) and the sequence number as a
   * header, and a timestamp of its own (base + seq) that the forwarder must keep.
   */
  static ProducerRecord<byte[], byte[]> record(String topic, int partitions, int seq, long base) {
    byte[] key = seq % 10 == 0 ? null : ("key-" + seq).getBytes(StandardCharsets.UTF_8);
    StringBuilder v = new StringBuilder("value-").append(seq).append('-');
    while (v.length() < 100) {
      v.append((char) ('a' + (seq + v.length()) % 26));
    }
    RecordHeaders h = new RecordHeaders();
    h.add(ForwardVerifier.SEQ, Integer.toString(seq).getBytes(StandardCharsets.UTF_8));
    h.add("trace", ("t-" + seq).getBytes(StandardCharsets.UTF_8));
    h.add("trace", "again".getBytes(StandardCharsets.UTF_8));
    h.add("empty", new byte[0]);
    return new ProducerRecord<>(topic, seq % partitions, base + seq, key, v.toString().getBytes(StandardCharsets.UTF_8),
        h);
  }
}
