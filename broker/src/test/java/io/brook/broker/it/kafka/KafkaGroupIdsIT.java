package io.brook.broker.it.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.it.BrokerProcess;
import io.brook.broker.it.HostileNames;
import io.brook.protocol.v1.DescribeGroupRequest;
import io.brook.protocol.v1.GroupServiceGrpc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import java.time.Duration;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka group ids are any string: the hostile names gRPC refuses (slashes, dots, spaces, unicode,
 * 250+ characters) are valid Kafka group ids, kept under hashed directories, and come back by their
 * names after a restart; nothing is written outside the data directory's groups/. An empty or
 * over-long id is INVALID_GROUP_ID.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class KafkaGroupIdsIT {
  static final String TOPIC = "ids";

  @TempDir Path dir;

  static Admin admin(BrokerProcess broker) {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.kafkaAddress(),
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000));
  }

  /** The hostile names that Kafka allows as group ids: not empty, at most 255 chars, no control characters. */
  static List<String> kafkaValid() {
    return HostileNames.ALL.keySet().stream().filter(n -> !n.isEmpty() && n.length() <= 255)
        .filter(n -> n.chars().noneMatch(Character::isISOControl)).toList();
  }

  List<Path> filesOutsideGroups(Path data) throws Exception {
    List<Path> out = new ArrayList<>();
    try (Stream<Path> s = Files.walk(dir)) {
      s.filter(p -> !p.startsWith(data)).forEach(out::add);
    }
    return out;
  }

  @Test
  void anyKafkaIdWorksAndComesBackAfterARestart() throws Exception {
    Path data = dir.resolve("data");
    List<String> ids = kafkaValid();
    assertThat(ids).hasSizeGreaterThan(20);
    TopicPartition tp = new TopicPartition(TOPIC, 0);
    try (BrokerProcess broker = BrokerProcess.start(data)) {
      try (Admin admin = admin(broker)) {
        admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
        try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            broker.kafkaAddress()), new StringSerializer(), new StringSerializer())) {
          for (int i = 0; i < 10; i++) {
            p.send(new ProducerRecord<>(TOPIC, 0, null, "v" + i));
          }
          p.flush();
        }
        List<Path> before = filesOutsideGroups(data);
        for (int i = 0; i < ids.size(); i++) {
          admin.alterConsumerGroupOffsets(ids.get(i), Map.of(tp, new OffsetAndMetadata(i % 10))).all().get();
        }
        assertThat(filesOutsideGroups(data)).isEqualTo(before);
        try (Stream<Path> s = Files.list(data.resolve("groups"))) {
          assertThat(s.map(p -> p.getFileName().toString()))
              .hasSize(ids.size()).allMatch(n -> n.matches("~[0-9a-f]{64}|[a-zA-Z0-9._-]+"));
        }
      }
      broker.stop();
      broker.restart();
      try (Admin admin = admin(broker)) {
        Set<String> listed = admin.listGroups().all().get().stream().map(g -> g.groupId()).collect(Collectors.toSet());
        assertThat(listed).containsExactlyInAnyOrderElementsOf(ids);
        for (int i = 0; i < ids.size(); i++) {
          assertThat(admin.listConsumerGroupOffsets(ids.get(i)).partitionsToOffsetAndMetadata().get().get(tp).offset())
              .as(HostileNames.ALL.get(ids.get(i))).isEqualTo(i % 10);
        }
        // gRPC reads such a group by its id too (it only refuses to create one).
        var described = GroupServiceGrpc.newBlockingStub(broker.channel())
            .describeGroup(DescribeGroupRequest.newBuilder().setGroup("a/b").build()).getGroup();
        assertThat(described.getName()).isEqualTo("a/b");
        admin.deleteConsumerGroups(List.of("a/b", "../escape")).all().get();
      }
      broker.stop();
      broker.restart();
      try (Admin admin = admin(broker)) {
        assertThat(admin.listGroups().all().get()).extracting(g -> g.groupId()).hasSize(ids.size() - 2)
            .doesNotContain("a/b", "../escape");
      }
    }
  }

  /** Members join groups of such ids too, with either protocol, and commit into them. */
  @Test
  void consumersOfBothProtocolsJoinGroupsWhoseIdsAreNoBrookNames() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"), "--set", "group.initial.rebalance.delay.ms=0")) {
      try (Admin admin = admin(broker)) {
        admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
        try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            broker.kafkaAddress()), new StringSerializer(), new StringSerializer())) {
          for (int i = 0; i < 5; i++) {
            p.send(new ProducerRecord<>(TOPIC, 0, null, "v" + i));
          }
          p.flush();
        }
        Map<String, String> groups = Map.of("classic", "console-consumer:1/a b", "consumer", "../848 caf\u00e9");
        for (Map.Entry<String, String> e : groups.entrySet()) {
          Map<String, Object> props = Map.of("bootstrap.servers", broker.kafkaAddress(), "group.id", e.getValue(),
              "group.protocol", e.getKey(), "auto.offset.reset", "earliest", "enable.auto.commit", false);
          try (KafkaConsumer<String, String> c = new KafkaConsumer<>(props, new StringDeserializer(),
              new StringDeserializer())) {
            c.subscribe(List.of(TOPIC));
            int seen = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (seen < 5 && System.nanoTime() < deadline) {
              seen += c.poll(Duration.ofMillis(200)).count();
            }
            assertThat(seen).as(e.getKey()).isEqualTo(5);
            c.commitSync();
          }
          assertThat(admin.listConsumerGroupOffsets(e.getValue()).partitionsToOffsetAndMetadata().get()
              .get(new TopicPartition(TOPIC, 0)).offset()).as(e.getKey()).isEqualTo(5);
        }
      }
    }
  }

  @Test
  void anEmptyOrTooLongIdIsInvalidGroupId() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"));
        KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
      RawKafka.createTopic(broker.kafkaPort(), TOPIC, 1);
      int correlation = 1;
      for (String id : List.of("", "z".repeat(256))) {
        OffsetCommitRequestData commit = new OffsetCommitRequestData().setGroupId(id).setGenerationIdOrMemberEpoch(-1)
            .setMemberId("").setTopics(List.of(new OffsetCommitRequestTopic().setName(TOPIC).setPartitions(List.of(
                new OffsetCommitRequestPartition().setPartitionIndex(0).setCommittedOffset(0)))));
        wire.write(KafkaWire.frame(ApiKeys.OFFSET_COMMIT, (short) 9, correlation, commit));
        OffsetCommitResponseData answer = (OffsetCommitResponseData) RawKafka.read(wire, ApiKeys.OFFSET_COMMIT,
            (short) 9, correlation++);
        assertThat(answer.topics().get(0).partitions().get(0).errorCode()).as("id of %d chars", id.length())
            .isEqualTo(Errors.INVALID_GROUP_ID.code());
      }
      try (Stream<Path> s = Files.list(dir.resolve("data").resolve("groups"))) {
        assertThat(s).isEmpty();
      }
    }
  }
}
