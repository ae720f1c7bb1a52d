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
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ListTopicsOptions;
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
import org.apache.kafka.common.config.ConfigResource;
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

  /**
   * Once a group exists Metadata lists the internal __consumer_offsets, so kafka-topics --describe (no
   * --exclude-internal) asks its configs with every other topic's: it must get them, or the tool stops.
   */
  @Test
  void theInternalTopicsConfigsAreDescribedAsEveryListedTopics() throws Exception {
    try (Admin admin = admin()) {
      admin.alterConsumerGroupOffsets("described-internal", Map.of(new TopicPartition(TOPIC, 0),
          new OffsetAndMetadata(0))).all().get(30, TimeUnit.SECONDS);
      assertThat(admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get(30, TimeUnit.SECONDS))
          .contains("__consumer_offsets");
      ConfigResource internal = new ConfigResource(ConfigResource.Type.TOPIC, "__consumer_offsets");
      Config config = admin.describeConfigs(List.of(internal)).all().get(30, TimeUnit.SECONDS).get(internal);
      assertThat(config.get("cleanup.policy").value()).isEqualTo("compact");
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

  @Test
  void adminListsDescribesAndDeletesGroupsOfEveryDoor() throws Exception {
    TopicPartition p0 = new TopicPartition(TOPIC, 0);
    TopicPartition p1 = new TopicPartition(TOPIC, 1);
    try (Admin admin = admin()) {
      admin.alterConsumerGroupOffsets("offsets-only", Map.of(p0, new OffsetAndMetadata(2))).all().get();
      // A gRPC offset-mode member, and an ack-mode group.
      var join = GroupServiceGrpc.newStub(broker.channel());
      java.util.concurrent.CompletableFuture<io.brook.protocol.v1.JoinGroupResponse> joined =
          new java.util.concurrent.CompletableFuture<>();
      join.joinGroup(io.brook.protocol.v1.JoinGroupRequest.newBuilder().setGroup("grpc-live").addTopics(TOPIC)
          .setClientId("grpc-client").build(), new io.grpc.stub.StreamObserver<>() {
            @Override
            public void onNext(io.brook.protocol.v1.JoinGroupResponse r) {
              joined.complete(r);
            }

            @Override
            public void onError(Throwable t) {
              joined.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {}
          });
      String memberId = joined.get(30, TimeUnit.SECONDS).getMemberId();
      grpc().createGroup(io.brook.protocol.v1.CreateGroupRequest.newBuilder().setGroup("acks")
          .setMode(io.brook.protocol.v1.GroupMode.GROUP_MODE_ACK).build());

      Map<String, org.apache.kafka.clients.admin.GroupListing> listed = admin.listGroups().all().get().stream()
          .collect(Collectors.toMap(org.apache.kafka.clients.admin.GroupListing::groupId, g -> g));
      assertThat(listed.get("offsets-only").type()).contains(org.apache.kafka.common.GroupType.CLASSIC);
      assertThat(listed.get("offsets-only").protocol()).isEmpty();
      assertThat(listed.get("offsets-only").groupState()).contains(org.apache.kafka.common.GroupState.EMPTY);
      assertThat(listed.get("grpc-live").protocol()).isEqualTo("consumer");
      assertThat(listed.get("grpc-live").groupState()).contains(org.apache.kafka.common.GroupState.STABLE);
      assertThat(listed.get("acks").type()).contains(org.apache.kafka.common.GroupType.SHARE);
      // Consumer groups only, as kafka-consumer-groups --list asks.
      assertThat(admin.listConsumerGroups().all().get()).extracting(g -> g.groupId())
          .contains("offsets-only", "grpc-live").doesNotContain("acks");

      var described = admin.describeConsumerGroups(List.of("offsets-only", "grpc-live")).all().get();
      assertThat(described.get("offsets-only").groupState()).isEqualTo(org.apache.kafka.common.GroupState.EMPTY);
      assertThat(described.get("offsets-only").members()).isEmpty();
      var live = described.get("grpc-live");
      assertThat(live.groupState()).isEqualTo(org.apache.kafka.common.GroupState.STABLE);
      assertThat(live.members()).singleElement().satisfies(m -> {
        assertThat(m.consumerId()).isEqualTo(memberId);
        assertThat(m.clientId()).isEqualTo("grpc-client");
        assertThat(m.assignment().topicPartitions()).containsExactlyInAnyOrder(p0, p1);
      });

      // A group with members cannot be deleted, nor its offsets; an empty one can.
      ExecutionException busy = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
          () -> admin.deleteConsumerGroups(List.of("grpc-live")).all().get());
      assertThat(busy.getCause()).isInstanceOf(org.apache.kafka.common.errors.GroupNotEmptyException.class);
      ExecutionException unknown = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
          () -> admin.deleteConsumerGroups(List.of("no-such-group")).all().get());
      assertThat(unknown.getCause()).isInstanceOf(org.apache.kafka.common.errors.GroupIdNotFoundException.class);

      admin.alterConsumerGroupOffsets("offsets-only", Map.of(p1, new OffsetAndMetadata(4))).all().get();
      admin.deleteConsumerGroupOffsets("offsets-only", java.util.Set.of(p0)).all().get();
      assertThat(grpcCommitted("offsets-only")).isEqualTo(Map.of(1, 4L));
      admin.deleteConsumerGroups(List.of("offsets-only")).all().get();
      assertThat(admin.listGroups().all().get()).extracting(g -> g.groupId()).doesNotContain("offsets-only");
      grpc().leaveGroup(io.brook.protocol.v1.LeaveGroupRequest.newBuilder().setGroup("grpc-live")
          .setMemberId(memberId).build());
    }
  }
}
