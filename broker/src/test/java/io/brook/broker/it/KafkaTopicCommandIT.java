package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.DescribeTopicRequest;
import io.brook.protocol.v1.ListTopicsRequest;
import io.brook.protocol.v1.TopicDescription;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's own kafka-topics (TopicCommand of kafka-tools 4.3.1, run by perf/kafka.sh, which resolves
 * the jars once into ~/.cache/brook) against the real broker process: create, describe, alter the
 * partition count, list and delete, seen through gRPC as well.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class KafkaTopicCommandIT {
  @TempDir Path dir;

  Exec.Result topics(BrokerProcess broker, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("bash", Path.of("..", "perf", "kafka.sh").toString(), "run",
        "org.apache.kafka.tools.TopicCommand", "--bootstrap-server", broker.kafkaAddress()));
    command.addAll(List.of(args));
    Exec.Result r = Exec.run(command, Map.of(), null, dir.resolve("out"));
    assertThat(r.exitCode()).as(r.toString()).isZero();
    return r;
  }

  /** Kafka prints topic ids in its base64 form. */
  static String kafkaId(String uuid) {
    UUID u = UUID.fromString(uuid);
    ByteBuffer b = ByteBuffer.allocate(16).putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits());
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b.array());
  }

  @Test
  void createDescribeAlterListAndDelete() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"))) {
      var admin = AdminServiceGrpc.newBlockingStub(broker.channel());
      assertThat(topics(broker, "--create", "--topic", "t", "--partitions", "6", "--config", "retention.ms=60000")
          .stdout()).contains("Created topic t.");
      TopicDescription t = admin.describeTopic(DescribeTopicRequest.newBuilder().setName("t").build()).getTopic();
      assertThat(t.getPartitionsCount()).isEqualTo(6);
      assertThat(t.getConfigMap()).containsEntry("retention.ms", "60000");

      String described = topics(broker, "--describe", "--topic", "t").stdout();
      assertThat(described).contains("TopicId: " + kafkaId(t.getTopicId())).contains("PartitionCount: 6")
          .contains("ReplicationFactor: 1").contains("retention.ms=60000");
      assertThat(described.lines().filter(l -> l.contains("Leader: 0\tReplicas: 0\tIsr: 0"))).hasSize(6);

      topics(broker, "--alter", "--topic", "t", "--partitions", "8");
      assertThat(admin.describeTopic(DescribeTopicRequest.newBuilder().setName("t").build()).getTopic()
          .getPartitionsCount()).isEqualTo(8);
      assertThat(topics(broker, "--list").lines()).containsExactly("t");

      topics(broker, "--delete", "--topic", "t");
      assertThat(admin.listTopics(ListTopicsRequest.getDefaultInstance()).getTopicsList()).isEmpty();
    }
  }
}
