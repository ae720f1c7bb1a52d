package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.it.kafka.KafkaWire;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka listener's doors: a kafka-clients Admin negotiates versions on it, plaintext and TLS
 * (the broker's certificates), and with auth.enabled it stays shut (no SASL yet): off with a log
 * line at its default, and an explicit kafka.listen refuses the start.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class KafkaSecurityIT {
  static final String API_VERSIONS_OK = "brook_kafka_errors_total{api=\"ApiVersions\",error=\"NONE\"}";
  @TempDir static Path dir;
  static TestCerts certs;

  @BeforeAll
  static void makeCertificates() throws Exception {
    certs = TestCerts.create(dir.resolve("certs"));
  }

  /** The Admin connects (its NetworkClient sends ApiVersions first) and asks for the cluster. */
  private static void adminAsks(String bootstrap, Map<String, Object> extra) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(AdminClientConfig.CLIENT_ID_CONFIG, "kafka-security-it");
    p.putAll(extra);
    try (Admin admin = Admin.create(p)) {
      // Without Metadata served (issue 25, part 4) the call times out; the negotiation before it is what counts.
      admin.describeCluster(new DescribeClusterOptions().timeoutMs(5_000)).clusterId().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      System.out.println("Admin describeCluster: " + e); // see above
    }
  }

  private static double metric(String scheme, int httpPort, HttpClient http, String series) throws Exception {
    String body = http.send(HttpRequest.newBuilder(URI.create(scheme + "://127.0.0.1:" + httpPort + "/metrics"))
        .build(), HttpResponse.BodyHandlers.ofString()).body();
    return body.lines().filter(l -> l.startsWith(series + " "))
        .mapToDouble(l -> Double.parseDouble(l.substring(series.length() + 1).trim())).findFirst().orElse(0);
  }

  @Test
  void aKafkaAdminNegotiatesApiVersions() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("plain"))) {
      HttpClient http = HttpClient.newHttpClient();
      assertThat(metric("http", broker.httpPort(), http, API_VERSIONS_OK)).isZero();
      adminAsks(broker.kafkaAddress(), Map.of());
      assertThat(metric("http", broker.httpPort(), http, API_VERSIONS_OK)).isGreaterThanOrEqualTo(1);
      assertThat(broker.currentStartLog()).as("no connection closed for what the Admin sent")
          .doesNotContain("KafkaConnection - Kafka connection from");
    }
  }

  @Test
  void tlsWithTheBrokersCertificates() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("tls"), "--set",
        "tls.cert.file=" + certs.server.cert(), "--set", "tls.key.file=" + certs.server.key())) {
      assertThat(broker.currentStartLog()).contains("(TLS), advertised as 127.0.0.1:" + broker.kafkaPort());
      javax.net.ssl.SSLContext trusting = certs.trustingContext();
      // A raw TLS socket trusting the test CA gets its answer.
      SSLSocket socket = (SSLSocket) trusting.getSocketFactory().createSocket("127.0.0.1", broker.kafkaPort());
      try (KafkaWire wire = new KafkaWire(socket)) {
        wire.write(KafkaWire.apiVersions((short) 3, 31));
        KafkaWire.Answer<org.apache.kafka.common.message.ApiVersionsResponseData> answer =
            wire.readApiVersions((short) 3);
        assertThat(answer.correlationId()).isEqualTo(31);
        assertThat(answer.data().errorCode()).isEqualTo(Errors.NONE.code());
      }
      // Plaintext bytes on the TLS port: closed.
      try (KafkaWire plain = new KafkaWire(broker.kafkaPort())) {
        plain.write(KafkaWire.apiVersions((short) 3, 32));
        assertThat(plain.closedByBroker()).isTrue();
      }
      // kafka-clients with security.protocol=SSL and the test CA (PEM truststore).
      HttpClient https = HttpClient.newBuilder().sslContext(trusting).build();
      double before = metric("https", broker.httpPort(), https, API_VERSIONS_OK);
      adminAsks(broker.kafkaAddress(), Map.of("security.protocol", "SSL", "ssl.truststore.type", "PEM",
          "ssl.truststore.location", certs.caCert.toString()));
      assertThat(metric("https", broker.httpPort(), https, API_VERSIONS_OK)).isGreaterThan(before);
      assertThat(metric("https", broker.httpPort(), https,
          "brook_kafka_refused_connections_total{reason=\"tls\"}")).isGreaterThanOrEqualTo(1);
    }
  }

  @Test
  void withAuthTheListenerStaysOffAndTheLogSaysWhy() throws Exception {
    Path perms = Files.writeString(dir.resolve("perms"), "alice * topic:*\n");
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("auth"), "--set", "auth.enabled=true", "--set",
        "auth.tokens=alice=secret", "--set", "auth.permissions.file=" + perms)) {
      assertThat(broker.kafkaPort()).isEqualTo(-1);
      assertThat(broker.currentStartLog()).contains("Kafka listener off: auth.enabled is set and the Kafka listener "
          + "has no SASL yet").containsPattern("Brook ready: .*, Kafka off, ");
    }
  }

  @Test
  void withAuthAnExplicitKafkaListenRefusesTheStart() throws Exception {
    Path perms = Files.writeString(dir.resolve("perms2"), "alice * topic:*\n");
    Path data = dir.resolve("refused");
    List<String> args = List.of("--set", "auth.enabled=true", "--set", "auth.tokens=alice=secret", "--set",
        "auth.permissions.file=" + perms, "--kafka-listen", "127.0.0.1:0");
    ProcessBuilder pb = Exec.builder(BrokerProcess.command(data, args), Map.of(), null, dir.resolve("runs"));
    Exec.Result r = Exec.await(pb, pb.start(), BrokerStartIT.REFUSAL_TIMEOUT_S);
    assertThat(r.exitCode()).as(r.toString()).isEqualTo(2);
    assertThat(r.stderr()).contains("kafka.listen=127.0.0.1:0 (from flag) is set with auth.enabled=true (from flag): "
        + "the Kafka listener has no SASL yet").doesNotContain("\tat ");
    assertThat(data).as("refused before touching the data directory").doesNotExist();
  }
}
