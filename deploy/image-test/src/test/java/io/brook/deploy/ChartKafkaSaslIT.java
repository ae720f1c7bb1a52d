package io.brook.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.dockerjava.api.DockerClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.BindMode;

/**
 * The chart with auth and TLS on (ci/auth-values.yaml, rendered by scripts/docker-test.sh for release
 * "brook"), started as its pod: the container's environment, and the files of its ConfigMap and the
 * Secrets the chart generates (properties, permissions, tokens, certificate) mounted where the pod
 * mounts them. Its Kafka listener is on under auth, and kafka-clients get in over SASL_SSL as the
 * chart's principals with the chart's tokens (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512), with the
 * permissions of the chart's values; a wrong token is refused.
 */
class ChartKafkaSaslIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private final DockerClient docker = DockerClientFactory.instance().client();
  private final String volume = "brook-chart-kafka-it-" + UUID.randomUUID();
  private BrookContainer broker;

  @AfterEach
  void stopAndRemove() {
    if (broker != null) {
      broker.stop();
    }
    docker.removeVolumeCmd(volume).exec();
  }

  @Test
  void withAuthTheChartsPodServesKafkaClientsOverSaslWithTheChartsTokens(@TempDir Path tmp) throws Exception {
    assertThat(BrookContainer.KAFKA_LISTENER).as("the broker in the image has the Kafka listener").isTrue();
    ChartPod pod = ChartPod.rendered("brook.chart.rendered.auth");
    Map<String, String> podEnv = pod.containerEnv();
    assertThat(podEnv).as("the Kafka listener of the chart's pod under auth: on, as without auth")
        .containsEntry("BROOK_KAFKA_LISTEN", "0.0.0.0:9092")
        .containsEntry("BROOK_KAFKA_ADVERTISED", "brook.brook.svc.cluster.local:9092");
    assertThat(pod.containerPortNames()).contains("kafka");
    Map<String, Path> mounts = pod.writeConfigVolumes(Files.createDirectories(tmp.resolve("volumes")));
    assertThat(mounts).as("the pod's settings, certificate and tokens")
        .containsOnlyKeys("/etc/brook/config", "/etc/brook/tls", "/etc/brook/auth");
    Path ca = tmp.resolve("ca.crt");
    Files.writeString(ca, pod.secretValue("brook-tls", "ca.crt"));

    docker.createVolumeCmd().withName(volume).exec();
    broker = new BrookContainer(ImageIT.image(), volume, SecureFiles.trusting(ca));
    Map<String, String> env = new HashMap<>(podEnv);
    // host network: the listeners on the loopback ports BrookContainer picked, not the chart's 0.0.0.0,
    // and the advertised in-cluster name (no cluster DNS here) that same loopback address
    env.remove("BROOK_GRPC_LISTEN");
    env.remove("BROOK_HTTP_LISTEN");
    env.put("BROOK_KAFKA_LISTEN", broker.kafkaAddress());
    env.put("BROOK_KAFKA_ADVERTISED", broker.kafkaAddress());
    broker.withEnv(env);
    mounts.forEach((path, dir) -> broker.withFileSystemBind(dir.toString(), path, BindMode.READ_ONLY));
    broker.start();
    assertThat(broker.getLogs()).contains("Security: TLS on").contains("auth on: 3 principals with tokens")
        .contains("Kafka on 127.0.0.1:" + broker.kafkaPort);

    String admin = pod.secretValue("brook-tokens", "token-admin");
    String ordersApp = pod.secretValue("brook-tokens", "token-orders-app");
    try (Admin a = Admin.create(client(ca, "SCRAM-SHA-256", "admin", admin))) {
      a.createTopics(List.of(new NewTopic("orders.eu", 1, (short) 1))).all().get();
    }
    List<String> sent = new ArrayList<>();
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(client(ca, "SCRAM-SHA-512", "orders-app",
        ordersApp), new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < 10; i++) {
        sent.add("order-" + i);
        producer.send(new ProducerRecord<>("orders.eu", "order-" + i)).get();
      }
      // orders-app produces to topic:orders.* only (the chart's auth.permissions)
      assertThatThrownBy(() -> producer.send(new ProducerRecord<>("payments", "x")).get())
          .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(TopicAuthorizationException.class);
    }
    assertThat(readAll(client(ca, "PLAIN", "orders-app", ordersApp), sent.size())).containsExactlyElementsOf(sent);

    try (Admin a = Admin.create(client(ca, "PLAIN", "admin", ordersApp))) {
      assertThatThrownBy(() -> a.listTopics().names().get()).as("admin with orders-app's token")
          .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(SaslAuthenticationException.class);
    }
  }

  /** A Kafka client's settings: SASL_SSL to the broker, trusting the chart's CA, as {@code user}. */
  private Properties client(Path ca, String mechanism, String user, String token) {
    Properties p = new Properties();
    p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, broker.kafkaAddress());
    p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_SSL");
    p.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
    p.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, ca.toString());
    p.put(SaslConfigs.SASL_MECHANISM, mechanism);
    String module = mechanism.equals("PLAIN") ? "org.apache.kafka.common.security.plain.PlainLoginModule"
        : "org.apache.kafka.common.security.scram.ScramLoginModule";
    p.put(SaslConfigs.SASL_JAAS_CONFIG, module + " required username=\"" + user + "\" password=\"" + token + "\";");
    p.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) TIMEOUT.toMillis());
    return p;
  }

  /** Reads orders.eu's one partition from the beginning (no group) until {@code expected} values came. */
  private static List<String> readAll(Properties config, int expected) {
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    List<String> got = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(),
        new StringDeserializer())) {
      consumer.assign(List.of(new TopicPartition("orders.eu", 0)));
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (got.size() < expected && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          got.add(r.value());
        }
      }
    }
    return got;
  }
}
