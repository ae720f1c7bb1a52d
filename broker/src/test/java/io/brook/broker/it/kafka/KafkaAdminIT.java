package io.brook.broker.it.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.brook.broker.it.BrokerProcess;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.DescribeTopicRequest;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.Record;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicCollection;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-clients 4.3.1's Admin (and a KafkaProducer's InitProducerId) against the real broker process,
 * exactly as against Kafka; what Admin does shows through gRPC too.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class KafkaAdminIT {
  @TempDir static Path dir;
  static BrokerProcess broker;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
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

  static Throwable cause(Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      return e.getCause() instanceof ExecutionException ee ? ee.getCause() : e;
    }
    throw new AssertionError("no failure");
  }

  static <T> T get(org.apache.kafka.common.KafkaFuture<T> f) {
    try {
      return f.get(60, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new RuntimeException(e);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void createTopicsValidateOnlyThenForRealWithKafkasRefusals() {
    try (Admin admin = admin()) {
      NewTopic orders = new NewTopic("orders", 3, (short) 1).configs(Map.of("retention.ms", "3600000",
          "cleanup.policy", "delete"));
      get(admin.createTopics(List.of(orders), new CreateTopicsOptions().validateOnly(true)).all());
      assertThat(get(admin.listTopics().names())).doesNotContain("orders");

      var created = admin.createTopics(List.of(orders));
      get(created.all());
      assertThat(get(created.numPartitions("orders"))).isEqualTo(3);
      assertThat(get(created.topicId("orders"))).isNotEqualTo(Uuid.ZERO_UUID);
      // The same topic through gRPC: same id, same config.
      var grpc = AdminServiceGrpc.newBlockingStub(broker.channel()).describeTopic(DescribeTopicRequest.newBuilder()
          .setName("orders").build()).getTopic();
      assertThat(grpc.getPartitionsCount()).isEqualTo(3);
      assertThat(grpc.getConfigMap()).containsEntry("retention.ms", "3600000");
      assertThat(get(created.topicId("orders")).toString()).isNotEmpty();

      Throwable rf = cause(() -> get(admin.createTopics(List.of(new NewTopic("r3", 1, (short) 3))).all()));
      assertThat(rf).isInstanceOf(InvalidReplicationFactorException.class).hasMessageContaining("single node");
      assertThat(cause(() -> get(admin.createTopics(List.of(new NewTopic("orders", 1, (short) 1))).all())))
          .isInstanceOf(TopicExistsException.class);
      assertThat(cause(() -> get(admin.createTopics(List.of(new NewTopic("compacted", 1, (short) 1)
          .configs(Map.of("cleanup.policy", "compact")))).all())))
          .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("compact");
      assertThat(get(admin.listTopics().names())).doesNotContain("r3", "compacted");
    }
  }

  @Test
  void describeTopicsByNameAndByIdWithTheOneNode() {
    try (Admin admin = admin()) {
      get(admin.createTopics(List.of(new NewTopic("described", 2, (short) 1))).all());
      TopicDescription byName = get(admin.describeTopics(List.of("described")).allTopicNames()).get("described");
      assertThat(byName.partitions()).hasSize(2);
      assertThat(byName.partitions().get(0).leader().id()).isZero();
      assertThat(byName.partitions().get(0).replicas()).extracting(Node::id).containsExactly(0);
      assertThat(byName.partitions().get(0).isr()).extracting(Node::id).containsExactly(0);
      Uuid id = byName.topicId();
      TopicDescription byId = get(admin.describeTopics(TopicCollection.ofTopicIds(List.of(id))).allTopicIds()).get(id);
      assertThat(byId.name()).isEqualTo("described");
      assertThat(cause(() -> get(admin.describeTopics(List.of("missing")).allTopicNames())))
          .isInstanceOf(UnknownTopicOrPartitionException.class);
    }
  }

  @Test
  void describeAndIncrementallyAlterTopicConfigs() {
    try (Admin admin = admin()) {
      get(admin.createTopics(List.of(new NewTopic("configured", 1, (short) 1))).all());
      ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "configured");
      get(admin.incrementalAlterConfigs(Map.of(topic, List.of(
          new AlterConfigOp(new ConfigEntry("retention.ms", "120000"), AlterConfigOp.OpType.SET),
          new AlterConfigOp(new ConfigEntry("message.timestamp.type", "LogAppendTime"), AlterConfigOp.OpType.SET))))
          .all());
      Config config = get(admin.describeConfigs(List.of(topic)).all()).get(topic);
      assertThat(config.get("retention.ms").value()).isEqualTo("120000");
      assertThat(config.get("retention.ms").source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
      assertThat(config.get("message.timestamp.type").value()).isEqualTo("LogAppendTime");
      assertThat(config.get("compression.type").value()).isEqualTo("producer");
      assertThat(config.get("cleanup.policy").value()).isEqualTo("delete");
      assertThat(config.get("retention.bytes").source()).isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);

      get(admin.incrementalAlterConfigs(Map.of(topic, List.of(
          new AlterConfigOp(new ConfigEntry("retention.ms", null), AlterConfigOp.OpType.DELETE)))).all());
      assertThat(get(admin.describeConfigs(List.of(topic)).all()).get(topic).get("retention.ms").source())
          .isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);

      assertThat(cause(() -> get(admin.incrementalAlterConfigs(Map.of(topic, List.of(new AlterConfigOp(
          new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.APPEND)))).all())))
          .isInstanceOf(InvalidRequestException.class);
      assertThat(cause(() -> get(admin.incrementalAlterConfigs(Map.of(topic, List.of(new AlterConfigOp(
          new ConfigEntry("compression.type", "zstd"), AlterConfigOp.OpType.SET)))).all())))
          .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("compression.type");

      ConfigResource node = new ConfigResource(ConfigResource.Type.BROKER, "0");
      Config brokerConfig = get(admin.describeConfigs(List.of(node)).all()).get(node);
      assertThat(brokerConfig.get("auto.create.topics.enable").value()).isEqualTo("true");
    }
  }

  @Test
  void createPartitionsGrowsOnly() {
    try (Admin admin = admin()) {
      get(admin.createTopics(List.of(new NewTopic("growing", 1, (short) 1))).all());
      get(admin.createPartitions(Map.of("growing", NewPartitions.increaseTo(3)),
          new org.apache.kafka.clients.admin.CreatePartitionsOptions().validateOnly(true)).all());
      assertThat(partitions(admin, "growing")).isEqualTo(1);
      get(admin.createPartitions(Map.of("growing", NewPartitions.increaseTo(3))).all());
      assertThat(partitions(admin, "growing")).isEqualTo(3);
      assertThat(cause(() -> get(admin.createPartitions(Map.of("growing", NewPartitions.increaseTo(2))).all())))
          .isInstanceOf(InvalidPartitionsException.class).hasMessageContaining("never shrink");
    }
  }

  static int partitions(Admin admin, String topic) {
    return get(admin.describeTopics(List.of(topic)).allTopicNames()).get(topic).partitions().size();
  }

  @Test
  void deleteTopicsByNameAndById() {
    try (Admin admin = admin()) {
      get(admin.createTopics(List.of(new NewTopic("gone-a", 1, (short) 1), new NewTopic("gone-b", 1, (short) 1)))
          .all());
      Uuid b = get(admin.describeTopics(List.of("gone-b")).allTopicNames()).get("gone-b").topicId();
      get(admin.deleteTopics(List.of("gone-a")).all());
      get(admin.deleteTopics(TopicCollection.ofTopicIds(List.of(b))).all());
      assertThat(get(admin.listTopics().names())).doesNotContain("gone-a", "gone-b");
      assertThat(cause(() -> get(admin.deleteTopics(List.of("gone-a")).all())))
          .isInstanceOf(UnknownTopicOrPartitionException.class);
    }
  }

  @Test
  void listOffsetsEarliestLatestForTimestampAndMaxTimestamp() {
    try (Admin admin = admin()) {
      get(admin.createTopics(List.of(new NewTopic("times", 1, (short) 1))).all());
      var produce = ProduceServiceGrpc.newBlockingStub(broker.channel());
      for (long ts : new long[] {1000, 5000, 3000, 9000, 2000}) { // offsets 0..4 over gRPC
        produce.produce(ProduceRequest.newBuilder().addBatches(ProduceBatch.newBuilder().setTopic("times")
            .setPartition(0).addRecords(Record.newBuilder().setValue(ByteString.copyFromUtf8("t" + ts))
                .setTimestampMs(ts))).build());
      }
      TopicPartition tp = new TopicPartition("times", 0);
      assertThat(offset(admin, tp, OffsetSpec.earliest()).offset()).isZero();
      assertThat(offset(admin, tp, OffsetSpec.latest()).offset()).isEqualTo(5);
      ListOffsetsResultInfo at = offset(admin, tp, OffsetSpec.forTimestamp(2500));
      assertThat(at.offset()).isEqualTo(1);
      assertThat(at.timestamp()).isEqualTo(5000);
      ListOffsetsResultInfo max = offset(admin, tp, OffsetSpec.maxTimestamp());
      assertThat(max.offset()).isEqualTo(3);
      assertThat(max.timestamp()).isEqualTo(9000);
      assertThat(offset(admin, tp, OffsetSpec.forTimestamp(9001)).offset()).isEqualTo(-1);
    }
  }

  static ListOffsetsResultInfo offset(Admin admin, TopicPartition tp, OffsetSpec spec) {
    return get(admin.listOffsets(Map.of(tp, spec)).partitionResult(tp));
  }

  @Test
  void describeClusterNamesTheOneNode() {
    try (Admin admin = admin()) {
      DescribeClusterResult cluster = admin.describeCluster();
      Collection<Node> nodes = get(cluster.nodes());
      assertThat(nodes).singleElement().satisfies(n -> {
        assertThat(n.id()).isZero();
        assertThat(n.host()).isEqualTo("127.0.0.1");
        assertThat(n.port()).isEqualTo(broker.kafkaPort());
      });
      assertThat(get(cluster.controller()).id()).isZero();
      assertThat(get(cluster.clusterId())).isNotBlank();
    }
  }

  @Test
  void anIdempotentProducerGetsItsProducerIdFromInitProducerIdAndWritesWithIt() throws Exception {
    try (Admin admin = admin()) {
      get(admin.createTopics(List.of(new NewTopic("idempotent", 1, (short) 1))).all());
    }
    double before = initProducerIdsAnswered();
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.kafkaAddress());
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 20_000);
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(),
        new StringSerializer())) {
      assertThat(producer.send(new ProducerRecord<>("idempotent", "k", "v")).get(60, TimeUnit.SECONDS).offset())
          .isZero();
    }
    assertThat(initProducerIdsAnswered()).isEqualTo(before + 1);
  }

  static double initProducerIdsAnswered() throws Exception {
    double n = broker.metric("brook_kafka_errors_total{api=\"InitProducerId\",error=\"NONE\"}");
    return Double.isNaN(n) ? 0 : n; // not counted yet
  }

  @Test
  void aProducerAsksForTopicsThatAreCreatedOnFirstUse() throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.kafkaAddress());
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(),
        new StringSerializer())) {
      assertThat(producer.partitionsFor("auto-created")).hasSize(1);
    }
    try (Admin admin = admin()) {
      assertThat(get(admin.listTopics().names())).contains("auto-created");
    }
  }

  @Test
  void topicIdsAreTheSameAfterARestart() throws Exception {
    Uuid before;
    try (Admin admin = admin()) {
      get(admin.createTopics(List.of(new NewTopic("kept", 2, (short) 1))).all());
      before = get(admin.describeTopics(List.of("kept")).allTopicNames()).get("kept").topicId();
    }
    broker.stop();
    broker.restart();
    try (Admin admin = admin()) {
      Map<String, TopicDescription> after = get(admin.describeTopics(Set.of("kept")).allTopicNames());
      assertThat(after.get("kept").topicId()).isEqualTo(before);
    }
  }
}
