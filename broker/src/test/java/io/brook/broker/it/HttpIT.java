package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.client.Serdes;
import io.brook.client.admin.BrookAdmin;
import io.brook.client.admin.NewTopic;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerConfig;
import io.brook.client.consumer.ConsumerRecord;
import io.brook.client.consumer.OffsetResetStrategy;
import io.brook.client.producer.BrookProducer;
import io.brook.client.producer.ProducerConfig;
import io.brook.client.producer.ProducerRecord;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The HTTP server of the real broker process: probes, /stats, /metrics, bad requests, HTTPS. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class HttpIT {
  static final String TOPIC = "orders.eu_1-x";

  @TempDir Path dir;

  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();

  private HttpResponse<String> send(String method, String url) throws IOException, InterruptedException {
    return send(http, method, url);
  }

  private static HttpResponse<String> send(HttpClient client, String method, String url)
      throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
        .method(method, HttpRequest.BodyPublishers.noBody()).build();
    return client.send(request, HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void probesAnswerAndUnknownPathsAndMethodsAreRefused() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"))) {
      String base = "http://127.0.0.1:" + broker.httpPort();
      assertThat(broker.currentStartLog()).contains("HTTP on http://127.0.0.1:" + broker.httpPort());

      HttpResponse<String> health = send("GET", base + "/healthz");
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(health.body()).isEqualTo("ok\n");
      HttpResponse<String> ready = send("GET", base + "/readyz");
      assertThat(ready.statusCode()).isEqualTo(200);
      HttpResponse<String> head = send("HEAD", base + "/metrics");
      assertThat(head.statusCode()).isEqualTo(200);
      assertThat(head.body()).isEmpty();

      HttpResponse<String> unknown = send("GET", base + "/nope?x=1");
      assertThat(unknown.statusCode()).isEqualTo(404);
      assertThat(unknown.body()).contains("not found");
      HttpResponse<String> post = send("POST", base + "/stats");
      assertThat(post.statusCode()).isEqualTo(405);
      assertThat(post.headers().firstValue("allow")).contains("GET, HEAD");
      assertThat(send("DELETE", base + "/healthz").statusCode()).isEqualTo(405);

      // Garbage on the socket gets a 400 and a close, and the server goes on serving.
      assertThat(raw(broker.httpPort(), "NOT HTTP AT ALL\r\n\r\n")).startsWith("HTTP/1.1 400");
      assertThat(send("GET", base + "/healthz").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void statsAndMetricsShowWhatWasProducedAndAGroupsLag() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"));
        BrookAdmin admin = BrookAdmin.create(broker.address())) {
      admin.createTopic(NewTopic.of(TOPIC).withPartitions(2));
      try (BrookProducer<String, String> producer = new BrookProducer<>(ProducerConfig.builder()
          .broker(broker.address()).build(), Serdes.stringSerializer(), Serdes.stringSerializer())) {
        for (int i = 0; i < 10; i++) {
          producer.sendSync(new ProducerRecord<>(TOPIC, 0, "k", "value-" + i));
        }
        for (int i = 0; i < 3; i++) {
          producer.sendSync(new ProducerRecord<>(TOPIC, 1, "k", "value-" + i));
        }
        try (BrookConsumer<String, String> consumer = new BrookConsumer<>(ConsumerConfig.builder()
            .broker(broker.address()).groupId("billing").autoOffsetReset(OffsetResetStrategy.EARLIEST)
            .fetchMaxWait(Duration.ofMillis(100)).build(), Serdes.stringDeserializer(), Serdes.stringDeserializer())) {
          consumer.subscribe(List.of(TOPIC));
          List<ConsumerRecord<String, String>> got = new ArrayList<>();
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
          while (got.size() < 13 && System.nanoTime() < deadline) {
            got.addAll(consumer.poll(Duration.ofMillis(200)).asList());
          }
          assertThat(got).hasSize(13);
          consumer.commitSync();
        }
        for (int i = 0; i < 4; i++) { // after the commit: the group lags by these
          producer.sendSync(new ProducerRecord<>(TOPIC, 0, "k", "later-" + i));
        }
        admin.createTopic(NewTopic.of("tiny").withConfig("max.record.bytes", "100"));
        assertThatThrownBy(() -> producer.sendSync(new ProducerRecord<>("tiny", 0, "k", "x".repeat(500))))
            .as("a batch refused inside a produce answer, for the metric");
      }
      assertThatThrownBy(() -> admin.createTopic(NewTopic.of(TOPIC))).as("a refused request, for the metric");

      String base = "http://127.0.0.1:" + broker.httpPort();
      HttpResponse<String> stats = send("GET", base + "/stats");
      assertThat(stats.statusCode()).isEqualTo(200);
      assertThat(stats.headers().firstValue("content-type")).contains("application/json");
      assertThat(stats.body())
          .containsPattern("^\\{\"version\":\"\\d+\\.\\d+\\.\\d+[^\"]*\",") // from the jar's manifest, not "dev"
          .contains("\"uptime_ms\":")
          .contains("\"disk\":{\"state\":\"OK\"")
          .contains("{\"name\":\"" + TOPIC + "\",\"partitions\":[{\"partition\":0,\"start_offset\":0,\"end_offset\":14,")
          .contains("{\"partition\":1,\"start_offset\":0,\"end_offset\":3,")
          .contains("{\"name\":\"billing\",\"mode\":\"OFFSET\"")
          .contains("\"topic\":\"" + TOPIC + "\",\"partition\":0,\"log_start_offset\":0,\"end_offset\":14,"
              + "\"committed_offset\":10,\"lag\":4}")
          .contains("\"partition\":1,\"log_start_offset\":0,\"end_offset\":3,\"committed_offset\":3,\"lag\":0}");

      HttpResponse<String> metrics = send("GET", base + "/metrics");
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.headers().firstValue("content-type")).contains("text/plain; version=0.0.4; charset=utf-8");
      assertThat(metrics.body().lines())
          .contains("brook_produced_records_total{topic=\"" + TOPIC + "\"} 17.0")
          .contains("brook_fetched_records_total{topic=\"" + TOPIC + "\"} 13.0")
          .contains("brook_partition_end_offset{partition=\"0\",topic=\"" + TOPIC + "\"} 14.0")
          .contains("brook_partition_end_offset{partition=\"1\",topic=\"" + TOPIC + "\"} 3.0")
          .contains("brook_group_lag_records{group=\"billing\",topic=\"" + TOPIC + "\"} 4.0")
          .contains("brook_rejected_requests_total{code=\"ALREADY_EXISTS\",reason=\"TOPIC_ALREADY_EXISTS\"} 1.0")
          .contains("brook_disk_state{state=\"OK\"} 1.0");
      assertThat(metrics.body())
          .containsPattern("(?m)^brook_rejected_requests_total\\{code=\"[A-Z_]+\",reason=\"RECORD_TOO_LARGE\"} 1\\.0$")
          .containsPattern("(?m)^brook_produce_request_duration_seconds_count (1[89]|[2-9][0-9])\\.?[0-9]*$")
          .contains("brook_rpc_duration_seconds_count{code=\"OK\",method=\"brook.v1.AdminService/CreateTopic\"} 2")
          .contains("jvm_memory_used_bytes{area=\"heap\"}");
    }
  }

  @Test
  void withCertAndKeyOnlyHttpsIsServed() throws Exception {
    TestCerts certs = TestCerts.create(dir.resolve("certs"));
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"), "--set",
        "tls.cert.file=" + certs.server.cert(), "--set", "tls.key.file=" + certs.server.key())) {
      assertThat(broker.currentStartLog()).contains("HTTP on https://127.0.0.1:" + broker.httpPort());
      int port = broker.httpPort();

      assertThatThrownBy(() -> send("GET", "http://127.0.0.1:" + port + "/healthz")).as("plain HTTP")
          .isInstanceOf(IOException.class);
      assertThatThrownBy(() -> send("GET", "https://127.0.0.1:" + port + "/healthz")).as("a CA the client lacks")
          .isInstanceOf(SSLHandshakeException.class);

      HttpClient tls = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(certs.trustingContext())
          .connectTimeout(Duration.ofSeconds(5)).build();
      HttpResponse<String> health = send(tls, "GET", "https://127.0.0.1:" + port + "/healthz");
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(health.body()).isEqualTo("ok\n");
      assertThat(send(tls, "GET", "https://127.0.0.1:" + port + "/metrics").body()).contains("brook_grpc_connections");
    }
  }

  @Test
  void withAuthOnMetricsAndStatsNeedAKnownTokenButProbesDoNot() throws Exception {
    Path tokens = Files.writeString(dir.resolve("tokens"), "prometheus=scrape-s3cret\n");
    Path permissions = Files.writeString(dir.resolve("permissions"), "# monitoring needs no permission\n");
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"), "--set", "auth.enabled=true",
        "--set", "auth.tokens.file=" + tokens, "--set", "auth.permissions.file=" + permissions)) {
      String base = "http://127.0.0.1:" + broker.httpPort();
      assertThat(send("GET", base + "/healthz").statusCode()).isEqualTo(200);
      assertThat(send("GET", base + "/readyz").statusCode()).isEqualTo(200);
      for (String path : List.of("/metrics", "/stats")) {
        HttpResponse<String> none = send("GET", base + path);
        assertThat(none.statusCode()).as(path + " without a token").isEqualTo(401);
        assertThat(none.headers().firstValue("WWW-Authenticate")).contains("Bearer");
        HttpResponse<String> wrong = sendWith("Bearer guess", base + path);
        assertThat(wrong.statusCode()).as(path + " with an unknown token").isEqualTo(401);
        assertThat(wrong.body()).doesNotContain("guess");
        assertThat(sendWith("Basic c2NyYXBl", base + path).statusCode()).as(path + " with basic auth").isEqualTo(401);
        HttpResponse<String> right = sendWith("Bearer scrape-s3cret", base + path);
        assertThat(right.statusCode()).as(path + " with the token").isEqualTo(200);
        assertThat(right.body()).contains(path.equals("/metrics") ? "brook_grpc_connections" : "\"uptime_ms\"");
      }
    }
  }

  private HttpResponse<String> sendWith(String authorization, String url) throws IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
        .header("Authorization", authorization).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  /**
   * A client that pipelines thousands of scrapes and reads no answer holds one answer at most: the
   * server reads its next request only after writing the last. Before, the answers queued in direct
   * memory until the JVM ran out of it, and probes and gRPC stopped answering.
   */
  @Test
  void aClientPipeliningScrapesWithoutReadingCannotStarveProbesOrMemory() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"), Map.of(),
        List.of("-XX:MaxDirectMemorySize=64m"))) {
      String base = "http://127.0.0.1:" + broker.httpPort();
      String oneScrape = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
      try (Socket flood = new Socket("127.0.0.1", broker.httpPort())) {
        flood.setSendBufferSize(64 << 10);
        Thread writer = new Thread(() -> {
          try {
            OutputStream out = flood.getOutputStream();
            byte[] batch = oneScrape.repeat(1000).getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; i < 20; i++) {
              out.write(batch); // blocks once the server stops reading: that is the point
            }
          } catch (IOException e) {
            // closed by the test
          }
        });
        writer.setDaemon(true);
        writer.start();
        for (int i = 0; i < 20; i++) {
          assertThat(send("GET", base + "/healthz").statusCode()).isEqualTo(200);
          assertThat(send("GET", base + "/metrics").body()).contains("brook_grpc_connections");
        }
        assertThat(new Wire(broker.channel()).create("still-serving", 1).getName()).isEqualTo("still-serving");
      }
      assertThat(broker.currentStartLog()).doesNotContain("OutOfMemoryError");
    }
  }

  @Test
  void pipelinedRequestsAreAnsweredInOrder() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"))) {
      String answers = raw(broker.httpPort(), "GET /stats HTTP/1.1\r\nHost: x\r\n\r\n"
          + "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
          + "GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      int stats = answers.indexOf("\"uptime_ms\"");
      int ok = answers.indexOf("\r\n\r\nok\n");
      int notFound = answers.indexOf("HTTP/1.1 404");
      assertThat(stats).isPositive();
      assertThat(ok).isGreaterThan(stats);
      assertThat(notFound).isGreaterThan(ok);
    }
  }

  /** Sends bytes as they are and returns what the server answered before it closed. */
  private static String raw(int port, String request) throws IOException {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(request.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    }
  }
}
