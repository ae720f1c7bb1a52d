package io.brook.perf.harness;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The baseline of the forward workload (issue 28, D72): what a user writes without Brook's forwarder, a
 * kafka-clients consumer → producer loop. It reads a topic from the earliest uncommitted offset (its
 * cursor: a consumer group's committed offsets), sends each record to the same partition of the target
 * with its key, value, headers and timestamp plus the brook.origin.* headers, waits for the
 * acknowledgement (acks=all, idempotent; linger 10 ms and lz4, the forwarder's defaults), then commits:
 * at-least-once, as the forwarder. Any failure closes both clients and starts again from the committed
 * offsets after a pause (so it survives a broker's restart).
 *
 * <pre>java -cp brook-perf.jar io.brook.perf.harness.ForwardLoop FROM TO TOPIC TARGET GROUP CLUSTER [RECORDS]</pre>
 * RECORDS: exit 0 once that many were forwarded; none: run until stopped (the check and the workload).
 */
public final class ForwardLoop {
  private ForwardLoop() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 6) {
      System.err.println("usage: ForwardLoop FROM_BOOTSTRAP TO_BOOTSTRAP TOPIC TARGET GROUP CLUSTER [RECORDS]");
      System.exit(2);
    }
    System.setProperty("org.slf4j.simpleLogger.log.org.apache.kafka", "error");
    long limit = args.length > 6 ? Long.parseLong(args[6]) : Long.MAX_VALUE;
    long t0 = System.nanoTime();
    long done = run(args[0], args[1], args[2], args[3], args[4], args[5], limit);
    System.out.printf("forward-loop: %d records in %d ms%n", done, (System.nanoTime() - t0) / 1_000_000);
  }

  static long run(String from, String to, String topic, String target, String group, String cluster, long limit)
      throws InterruptedException {
    long forwarded = 0;
    while (forwarded < limit) {
      try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps(from, group));
           KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProps(to))) {
        List<TopicPartition> parts = new ArrayList<>();
        for (PartitionInfo p : consumer.partitionsFor(topic, Duration.ofSeconds(10))) {
          parts.add(new TopicPartition(topic, p.partition()));
        }
        consumer.assign(parts);
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(new java.util.HashSet<>(parts),
            Duration.ofSeconds(10));
        for (TopicPartition tp : parts) {
          OffsetAndMetadata o = committed.get(tp);
          if (o == null) {
            consumer.seekToBeginning(List.of(tp));
          } else {
            consumer.seek(tp, o.offset());
          }
        }
        // Commit where it starts before it says ready: the group's coordinator (and __consumer_offsets on a
        // fresh Kafka) is then up, so a first commit cannot time out mid-measure and make it resend a poll.
        Map<TopicPartition, OffsetAndMetadata> start = new HashMap<>();
        for (TopicPartition tp : parts) {
          start.put(tp, new OffsetAndMetadata(consumer.position(tp, Duration.ofSeconds(10))));
        }
        consumer.commitSync(start, Duration.ofSeconds(30));
        byte[] clusterBytes = cluster.getBytes(StandardCharsets.UTF_8);
        System.out.println("forward-loop: ready, " + parts.size() + " partitions of " + topic);
        System.out.flush();
        while (forwarded < limit) {
          ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(500));
          if (records.isEmpty()) {
            continue;
          }
          AtomicReference<Exception> failed = new AtomicReference<>();
          Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
          for (ConsumerRecord<byte[], byte[]> r : records) {
            RecordHeaders h = new RecordHeaders(r.headers().toArray());
            h.add(ForwardVerifier.ORIGIN_TOPIC, r.topic().getBytes(StandardCharsets.UTF_8));
            h.add(ForwardVerifier.ORIGIN_PARTITION, Integer.toString(r.partition()).getBytes(StandardCharsets.UTF_8));
            h.add(ForwardVerifier.ORIGIN_OFFSET, Long.toString(r.offset()).getBytes(StandardCharsets.UTF_8));
            h.add(ForwardVerifier.ORIGIN_CLUSTER, clusterBytes);
            producer.send(new ProducerRecord<>(target, r.partition(), r.timestamp(), r.key(), r.value(), h),
                (m, e) -> {
                  if (e != null) {
                    failed.compareAndSet(null, e);
                  }
                });
            next.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
          }
          producer.flush();
          if (failed.get() != null) {
            throw failed.get();
          }
          consumer.commitSync(next, Duration.ofSeconds(10));
          forwarded += records.count();
        }
      } catch (Exception e) {
        System.err.println("forward-loop: " + e.getClass().getSimpleName() + ": " + e.getMessage()
            + "; again from the committed offsets in 1 s");
        Thread.sleep(1000);
      }
    }
    return forwarded;
  }

  private static Properties consumerProps(String bootstrap, String group) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return p;
  }

  private static Properties producerProps(String bootstrap) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    // What Brook's forwarder sends with by default (forward/KafkaTarget): the same batches reach Kafka.
    p.put(ProducerConfig.LINGER_MS_CONFIG, "10");
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return p;
  }
}
