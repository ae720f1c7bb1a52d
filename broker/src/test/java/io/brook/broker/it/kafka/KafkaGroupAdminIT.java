package io.brook.broker.it.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.it.BrokerProcess;
import io.brook.protocol.v1.CommitOffsetsRequest;
import io.brook.protocol.v1.CommittedOffset;
import io.brook.protocol.v1.FetchCommittedOffsetsRequest;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.OffsetCommit;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
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
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-clients 4.3.1's Admin and consumers on Brook's groups, against the real broker process:
 * offsets committed over Kafka are the ones gRPC and {@code bin/brook group} see, and the reverse.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class KafkaGroupAdminIT {
  static final String TOPIC = "orders";
  static final int RECORDS = 40;

  @TempDir static Path dir;
  static BrokerProcess broker;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
    try (Admin admin = admin()) {
      admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).all().get();
    }
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.kafkaAddress());
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(),
        new StringSerializer())) {
      for (int i = 0; i < RECORDS; i++) {
        producer.send(new ProducerRecord<>(TOPIC, i % 2, "k" + i, "v" + i));
      }
      producer.flush();
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (broker != null) {
      assertThat(broker.isAlive()).isTrue();
      broker.close();
    }
  }

  static Admin admin() {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.kafkaAddress(),
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000));
  }

  static KafkaConsumer<String, String> consumer(String group) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.kafkaAddress());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
  }

  static GroupServiceGrpc.GroupServiceBlockingStub grpc() {
    return GroupServiceGrpc.newBlockingStub(broker.channel());
  }

  /** What gRPC's FetchCommittedOffsets answers, as partition → offset. */
  static Map<Integer, Long> grpcCommitted(String group) {
    List<CommittedOffset> offsets = grpc().fetchCommittedOffsets(FetchCommittedOffsetsRequest.newBuilder()
        .setGroup(group).build()).getOffsetsList();
    return offsets.stream().filter(o -> o.getTopic().equals(TOPIC))
        .collect(Collectors.toMap(CommittedOffset::getPartition, CommittedOffset::getOffset));
  }

  static List<ConsumerRecord<String, String>> pollAtLeast(KafkaConsumer<String, String> c, int n) {
    List<ConsumerRecord<String, String>> got = new ArrayList<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (got.size() < n && System.nanoTime() < deadline) {
      c.poll(Duration.ofMillis(200)).forEach(got::add);
    }
    assertThat(got).hasSizeGreaterThanOrEqualTo(n);
    return got;
  }

  @Test
  void anAssignedConsumersCommitsAreBrooksAndBrooksCommitsAreTheConsumers() throws Exception {
    TopicPartition p0 = new TopicPartition(TOPIC, 0);
    TopicPartition p1 = new TopicPartition(TOPIC, 1);
    try (KafkaConsumer<String, String> c = consumer("billing")) {
      c.assign(List.of(p0, p1));
      pollAtLeast(c, RECORDS);
      c.commitSync(Map.of(p0, new OffsetAndMetadata(7, "seven"), p1, new OffsetAndMetadata(RECORDS / 2)));
      assertThat(grpcCommitted("billing")).isEqualTo(Map.of(0, 7L, 1, (long) RECORDS / 2));

      // gRPC commits from outside (the group has no members): the consumer reads them.
      grpc().commitOffsets(CommitOffsetsRequest.newBuilder().setGroup("billing").addOffsets(OffsetCommit.newBuilder()
          .setTopic(TOPIC).setPartition(0).setOffset(3).setMetadata("from grpc")).build());
      Map<TopicPartition, OffsetAndMetadata> seen = c.committed(java.util.Set.of(p0, p1));
      assertThat(seen.get(p0).offset()).isEqualTo(3);
      assertThat(seen.get(p0).metadata()).isEqualTo("from grpc");
      assertThat(seen.get(p1).offset()).isEqualTo(RECORDS / 2);

      // Past the end: Brook refuses it (OFFSET_OUT_OF_RANGE), which kafka-clients' consumer does not expect there.
      assertThatThrownBy(() -> c.commitSync(Map.of(p0, new OffsetAndMetadata(RECORDS + 1))))
          .isInstanceOf(KafkaException.class).hasMessageContaining("not within the range of offsets");
      assertThat(grpcCommitted("billing")).isEqualTo(Map.of(0, 3L, 1, (long) RECORDS / 2));
    }
  }

  @Test
  void adminAltersAndListsOffsets() throws Exception {
    TopicPartition p0 = new TopicPartition(TOPIC, 0);
    try (Admin admin = admin()) {
      admin.alterConsumerGroupOffsets("reset-me", Map.of(p0, new OffsetAndMetadata(5))).all().get();
      assertThat(grpcCommitted("reset-me")).isEqualTo(Map.of(0, 5L));
      Map<TopicPartition, OffsetAndMetadata> listed = admin.listConsumerGroupOffsets("reset-me")
          .partitionsToOffsetAndMetadata().get();
      assertThat(listed).containsOnlyKeys(p0);
      assertThat(listed.get(p0).offset()).isEqualTo(5);
      assertThat(admin.listConsumerGroupOffsets("never-used").partitionsToOffsetAndMetadata().get()).isEmpty();
      ExecutionException tooFar = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
          () -> admin.alterConsumerGroupOffsets("reset-me", Map.of(p0, new OffsetAndMetadata(RECORDS + 1))).all().get());
      assertThat(tooFar.getCause()).isInstanceOf(OffsetOutOfRangeException.class);
    }
  }
}
