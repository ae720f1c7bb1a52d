package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.protocol.v1.CommitOffsetsRequest;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.OffsetCommit;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A group Kafka's Admin commits to, as {@code bin/brook group list/describe}, /stats and /metrics show
 * it (the same offsets, its type), and a gRPC commit as Kafka's Admin reads it.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class KafkaGroupCliIT {
  @TempDir Path dir;

  Exec.Result brook(BrokerProcess broker, String... args) throws Exception {
    Exec.Result r = Exec.run(CliIT.command(args), CliIT.withJava(Map.of("BROOK_BROKER", broker.address())), null,
        dir.resolve("runs"));
    assertThat(r.exitCode()).as(r.toString()).isZero();
    return r;
  }

  static String http(BrokerProcess broker, String path) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + broker.httpPort()
        + path)).build(), HttpResponse.BodyHandlers.ofString()).body();
  }

  @Test
  void kafkaCommitsShowInTheCliStatsAndMetricsAndGrpcCommitsInAdmin() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"));
        Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.kafkaAddress(),
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000))) {
      admin.createTopics(List.of(new NewTopic("orders", 2, (short) 1))).all().get();
      try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
          broker.kafkaAddress()), new StringSerializer(), new StringSerializer())) {
        for (int i = 0; i < 10; i++) {
          p.send(new ProducerRecord<>("orders", i % 2, null, "v" + i));
        }
        p.flush();
      }
      TopicPartition p0 = new TopicPartition("orders", 0);
      TopicPartition p1 = new TopicPartition("orders", 1);
      admin.alterConsumerGroupOffsets("billing", Map.of(p0, new OffsetAndMetadata(3), p1, new OffsetAndMetadata(5)))
          .all().get();

      assertThat(brook(broker, "group", "list").stdout().lines())
          .anyMatch(l -> l.matches("billing\\s+offset\\s+empty\\s+0\\s+none"));
      List<String[]> rows = brook(broker, "group", "describe", "billing").stdout().lines()
          .filter(l -> l.startsWith("orders ")).map(l -> l.trim().split("\\s+")).toList();
      assertThat(rows).extracting(r -> r[1] + "=" + r[2] + "/" + r[3] + " lag " + r[4])
          .containsExactly("0=3/5 lag 2", "1=5/5 lag 0");
      assertThat(http(broker, "/stats")).contains("\"name\":\"billing\",\"mode\":\"OFFSET\",\"type\":\"none\"");
      assertThat(http(broker, "/metrics")).contains("brook_group_members{group=\"billing\",type=\"none\"} 0.0");

      GroupServiceGrpc.newBlockingStub(broker.channel()).commitOffsets(CommitOffsetsRequest.newBuilder()
          .setGroup("billing").addOffsets(OffsetCommit.newBuilder().setTopic("orders").setPartition(0).setOffset(1))
          .build());
      assertThat(admin.listConsumerGroupOffsets("billing").partitionsToOffsetAndMetadata().get().get(p0).offset())
          .isEqualTo(1);
    }
  }
}
