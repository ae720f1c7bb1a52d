package io.brook.perf.harness;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Kafka through kafka-clients 4.3.1, with the settings Brook's client gets: acks=all (Brook WRITTEN:
 * neither forces to the device per message), idempotence on, no compression, the same batch size and
 * linger. The same client drives Brook's Kafka listener (system brook-kafka): {@link Server#kafkaBootstrap}. {@code topicConfig} holds what a variant adds to its topics (kafka-flush: flush.messages=1,
 * a force per write, the peer of Brook's SYNCED).
 */
final class KafkaClient implements SystemClient {
  private final String name;
  private final Server server;
  private final Map<String, String> topicConfig;
  private final Admin admin;

  KafkaClient(String name, Server server, Map<String, String> topicConfig) {
    this.name = name;
    this.server = server;
    this.topicConfig = topicConfig;
    Properties p = new Properties();
    p.put("bootstrap.servers", server.kafkaBootstrap());
    this.admin = Admin.create(p);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Server server() {
    return server;
  }

  @Override
  public void createTopic(String topic, int partitions) throws Exception {
    admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(topicConfig))).all()
        .get(60, TimeUnit.SECONDS);
    awaitWritable(topic, partitions);
  }

  /**
   * Returns once every partition answers ListOffsets from its leader. Producing into a topic the
   * moment CreateTopics answers (or even once DescribeTopics shows the leaders: the broker's metadata
   * knows them some milliseconds before its ReplicaManager has created the logs) gets
   * NOT_LEADER_OR_FOLLOWER, and 4.3.1's idempotent producer then sometimes resends its first batch
   * after later ones were written and fails for good with OutOfOrderSequenceException (seen here in
   * the server log: "0 (incoming seq. number), 251 (current end sequence number)"). That would
   * measure a Kafka client bug and the topic's creation, not Kafka's produce path.
   */
  private void awaitWritable(String topic, int partitions) throws Exception {
    Map<TopicPartition, OffsetSpec> all = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      all.put(new TopicPartition(topic, p), OffsetSpec.latest());
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        admin.listOffsets(all).all().get(60, TimeUnit.SECONDS);
        return;
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof RetriableException) || System.nanoTime() > deadline) {
          throw e;
        } // UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE: not yet
      }
      Thread.sleep(20);
    }
  }

  @Override
  public void deleteTopic(String topic) {
    try {
      admin.deleteTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      // best effort: the node's log directory goes away with the run anyway
    }
  }

  @Override
  public Producer producer(String topic, ClientSettings s) {
    Properties p = new Properties();
    p.put("bootstrap.servers", server.kafkaBootstrap());
    p.put("acks", "all");
    p.put("enable.idempotence", "true");
    p.put("compression.type", "none");
    p.put("batch.size", Integer.toString(s.batchSize()));
    p.put("linger.ms", Integer.toString(s.lingerMs()));
    p.putAll(s.extra());
    KafkaProducer<byte[], byte[]> k = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    return new Producer() {
      @Override
      public void send(byte[] value, Completion done) {
        k.send(new ProducerRecord<>(topic, value), (m, e) -> done.done(e));
      }

      @Override
      public void send(int partition, byte[] value, Completion done) {
        k.send(new ProducerRecord<>(topic, partition, null, value), (m, e) -> done.done(e));
      }

      @Override
      public void flush() {
        k.flush();
      }

      @Override
      public void close() {
        k.close(Duration.ofSeconds(30));
      }
    };
  }

  private Properties consumerProps(ClientSettings s) {
    Properties p = new Properties();
    p.put("bootstrap.servers", server.kafkaBootstrap());
    p.put("max.poll.records", Integer.toString(s.maxPollRecords()));
    p.put("fetch.max.bytes", Integer.toString(s.fetchMaxBytes()));
    // Brook's fetchMaxBytes bounds the whole answer only; so that the per-partition cap does not bind first
    p.put("max.partition.fetch.bytes", Integer.toString(s.fetchMaxBytes()));
    return p;
  }

  @Override
  public Consumer consumer(String topic, int partitions, ClientSettings s) {
    Properties p = consumerProps(s);
    p.put("enable.auto.commit", "false");
    p.put("auto.offset.reset", "earliest");
    KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    List<TopicPartition> all = new ArrayList<>();
    for (int i = 0; i < partitions; i++) {
      all.add(new TopicPartition(topic, i));
    }
    c.assign(all);
    c.seekToBeginning(all);
    return new Consumer() {
      @Override
      public int poll(Duration timeout, RecordSink sink) {
        return pollInto(c, timeout, sink);
      }

      @Override
      public void close() {
        c.close(Duration.ofSeconds(10));
      }
    };
  }

  @Override
  public GroupMember groupMember(String group, String topic, ClientSettings s, AssignmentListener assigned) {
    Properties p = consumerProps(s);
    p.put("group.id", group);
    p.put("auto.offset.reset", "earliest");
    p.putAll(s.extra()); // group.protocol, a workload's choice
    KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    c.subscribe(List.of(topic), new ConsumerRebalanceListener() {
      @Override
      public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
        // What was read is committed before another member gets the partition (auto-commit alone would
        // let it read again from the last 5-second commit): the usual listener of a group application.
        c.commitSync();
        assigned.assigned(partitionsWithout(c.assignment(), revoked));
      }

      @Override
      public void onPartitionsAssigned(Collection<TopicPartition> added) {
        assigned.assigned(partitionsWithout(c.assignment(), List.of()));
      }

      @Override
      public void onPartitionsLost(Collection<TopicPartition> lost) {
        assigned.assigned(partitionsWithout(c.assignment(), lost));
      }
    });
    return new GroupMember() {
      @Override
      public int poll(Duration timeout, RecordSink sink) {
        return pollInto(c, timeout, sink);
      }

      @Override
      public void close() {
        c.close(Duration.ofSeconds(30));
      }
    };
  }

  /** One poll, each record handed to the sink (first delivery: Kafka counts no attempts); how many came. */
  private static int pollInto(KafkaConsumer<byte[], byte[]> c, Duration timeout, RecordSink sink) {
    ConsumerRecords<byte[], byte[]> got = c.poll(timeout);
    for (ConsumerRecord<byte[], byte[]> r : got) {
      sink.accept(r.partition(), r.offset(), r.value(), 1);
    }
    return got.count();
  }

  private static Set<Integer> partitionsWithout(Set<TopicPartition> all, Collection<TopicPartition> gone) {
    Set<Integer> left = new TreeSet<>();
    for (TopicPartition tp : all) {
      if (!gone.contains(tp)) {
        left.add(tp.partition());
      }
    }
    return left;
  }

  @Override
  public void prepareAckGroup(String group, String topic) throws Exception {
    // A share group reads nothing already in the topic unless its share.auto.offset.reset is earliest.
    ConfigResource r = new ConfigResource(ConfigResource.Type.GROUP, group);
    admin.incrementalAlterConfigs(Map.of(r, List.of(new AlterConfigOp(
        new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET)))).all()
        .get(60, TimeUnit.SECONDS);
  }

  @Override
  public AckReader ackReader(String group, String topic, ClientSettings s) {
    Properties p = consumerProps(s);
    p.put("group.id", group);
    // Each record accepted by the application, as a Brook ack consumer acks each record.
    p.put("share.acknowledgement.mode", "explicit");
    KafkaShareConsumer<byte[], byte[]> c = new KafkaShareConsumer<>(p, new ByteArrayDeserializer(),
        new ByteArrayDeserializer());
    c.subscribe(List.of(topic));
    return new AckReader() {
      @Override
      public int pollAndAck(Duration timeout, RecordSink sink) {
        ConsumerRecords<byte[], byte[]> got = c.poll(timeout);
        for (ConsumerRecord<byte[], byte[]> r : got) {
          sink.accept(r.partition(), r.offset(), r.value(), r.deliveryCount().orElse((short) 1));
          c.acknowledge(r, AcknowledgeType.ACCEPT);
        }
        return got.count();
      }

      @Override
      public void flush() {
        c.commitSync(Duration.ofSeconds(30));
      }

      @Override
      public void close() {
        c.close(Duration.ofSeconds(10));
      }
    };
  }

  @Override
  public void close() {
    admin.close(Duration.ofSeconds(10));
  }
}
