package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.ByteString;
import io.brook.protocol.v1.CreateGroupRequest;
import io.brook.protocol.v1.GroupMode;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.Header;
import io.brook.protocol.v1.Record;
import io.grpc.Channel;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ack mode over the REST relay (D70) against the real broker process, with java.net.http: receive,
 * ack, nack, reject, lease expiry, long polls that time out or lose their connection, a group shared
 * with a gRPC consumer, bad input and auth. Auth is on: every call carries a bearer token.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class HttpAckIT {
  static final String ROOT = "root-token-1234";
  static final String EVE = "eve-token-5678";
  static final String CARL = "carl-token-9012";
  static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @TempDir static Path dir;
  static BrokerProcess broker;
  static Wire wire;
  static Channel root;
  static final AtomicInteger names = new AtomicInteger();

  /** One answer: status and JSON body. */
  record Answer(int status, JsonObject body) {
    JsonArray records() {
      return body.getAsJsonArray("records");
    }

    String code() {
      JsonObject e = body.getAsJsonObject("error");
      return e == null || !e.has("code") ? null : e.get("code").getAsString();
    }
  }

  @BeforeAll
  static void startBroker() throws Exception {
    Path permissions = Files.writeString(dir.resolve("permissions"), """
        root * topic:*
        root * group:*
        # eve consumes in group e-g but no topic; carl consumes everything, in every group
        eve consume group:e-g
        carl consume topic:*
        carl consume group:*
        """);
    broker = BrokerProcess.start(dir.resolve("data"), "--set", "auth.enabled=true",
        "--set", "auth.tokens=root=" + ROOT + ",eve=" + EVE + ",carl=" + CARL,
        "--set", "auth.permissions.file=" + permissions);
    root = Wire.withToken(broker.channel(), ROOT);
    wire = new Wire(root);
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  /** A fresh topic with {@code n} records ("v0", ...) and an ack group on it from the earliest record. */
  static String[] topicAndGroup(int n, String... config) {
    String t = "t" + names.incrementAndGet();
    String g = "g" + names.get();
    wire.create(t, 1);
    if (n > 0) {
      wire.produceValues(t, 0, n, "v");
    }
    CreateGroupRequest.Builder b = CreateGroupRequest.newBuilder().setGroup(g).setMode(GroupMode.GROUP_MODE_ACK)
        .putConfig("auto.offset.reset", "earliest");
    for (int i = 0; i < config.length; i += 2) {
      b.putConfig(config[i], config[i + 1]);
    }
    GroupServiceGrpc.newBlockingStub(root).createGroup(b.build());
    return new String[] {t, g};
  }

  static Answer post(String token, String path, String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + broker.httpPort() + path))
        .timeout(java.time.Duration.ofSeconds(60)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    JsonElement e = r.body().isEmpty() ? new JsonObject() : JsonParser.parseString(r.body());
    assertThat(r.headers().firstValue("Content-Type").orElse("application/json")).startsWith("application/json");
    return new Answer(r.statusCode(), e.getAsJsonObject());
  }

  static Answer receive(String group, String consumer, String topic, int max, long waitMs) throws Exception {
    return post(ROOT, "/groups/" + group + "/receive", "{\"consumer\":\"" + consumer + "\",\"topics\":[\"" + topic
        + "\"],\"maxRecords\":" + max + ",\"waitMs\":" + waitMs + "}");
  }

  static String refs(String topic, long... offsets) {
    StringBuilder sb = new StringBuilder("[");
    for (long o : offsets) {
      sb.append(sb.length() > 1 ? "," : "").append("{\"topic\":\"").append(topic).append("\",\"partition\":0,\"offset\":")
          .append(o).append('}');
    }
    return sb.append(']').toString();
  }

  static Answer settle(String token, String kind, String group, String consumer, String topic, long... offsets)
      throws Exception {
    return post(token, "/groups/" + group + "/" + kind, "{\"consumer\":\"" + consumer + "\",\"records\":"
        + refs(topic, offsets) + "}");
  }

  static List<Long> offsets(Answer a) {
    List<Long> out = new ArrayList<>();
    a.records().forEach(r -> out.add(r.getAsJsonObject().get("offset").getAsLong()));
    return out;
  }

  static int attempt(Answer a, int i) {
    return a.records().get(i).getAsJsonObject().get("deliveryAttempt").getAsInt();
  }

  @Test
  void receiveThenAckRoundTripWithKeysHeadersAndBothEncodings() throws Exception {
    String[] tg = topicAndGroup(0);
    String t = tg[0];
    String g = tg[1];
    wire.produce(t, 0, List.of(Record.newBuilder().setKey(ByteString.copyFromUtf8("k")).setValue(
        ByteString.copyFromUtf8("héllo")).addHeaders(Header.newBuilder().setKey("h").setValue(
        ByteString.copyFromUtf8("hv"))).build(), Wire.value("two")));
    long before = System.currentTimeMillis();
    Answer a = receive(g, "c1", t, 1, 0);
    assertThat(a.status()).isEqualTo(200);
    assertThat(a.body().get("consumer").getAsString()).isEqualTo("c1");
    JsonObject r = a.records().get(0).getAsJsonObject();
    assertThat(r.get("topic").getAsString()).isEqualTo(t);
    assertThat(r.get("partition").getAsInt()).isZero();
    assertThat(r.get("offset").getAsLong()).isZero();
    assertThat(r.get("key").getAsString()).isEqualTo("k");
    assertThat(r.get("value").getAsString()).isEqualTo("héllo");
    assertThat(r.getAsJsonArray("headers").get(0).getAsJsonObject().get("value").getAsString()).isEqualTo("hv");
    assertThat(r.get("deliveryAttempt").getAsInt()).isEqualTo(1);
    assertThat(r.get("leaseDeadlineMs").getAsLong()).isGreaterThanOrEqualTo(before + 29_000);
    Answer b64 = post(ROOT, "/groups/" + g + "/receive", "{\"consumer\":\"c1\",\"topics\":[\"" + t
        + "\"],\"encoding\":\"base64\"}");
    JsonObject second = b64.records().get(0).getAsJsonObject();
    assertThat(second.get("offset").getAsLong()).isEqualTo(1);
    assertThat(second.get("value").getAsString()).isEqualTo(Base64.getEncoder().encodeToString(
        "two".getBytes(StandardCharsets.UTF_8)));
    Answer acked = settle(ROOT, "ack", g, "c1", t, 0, 1);
    assertThat(acked.status()).isEqualTo(200);
    assertThat(acked.body().getAsJsonArray("failures")).isEmpty();
    // Settled: nothing comes again, and acking again is refused.
    assertThat(receive(g, "c1", t, 10, 200).records()).isEmpty();
    Answer again = settle(ROOT, "ack", g, "c1", t, 0);
    assertThat(again.status()).isEqualTo(400);
    assertThat(again.code()).isEqualTo("ALREADY_SETTLED");
  }

  @Test
  void aNackedRecordComesAgainAsAttemptTwoAfterItsDelay() throws Exception {
    String[] tg = topicAndGroup(1);
    assertThat(offsets(receive(tg[1], "c1", tg[0], 1, 0))).containsExactly(0L);
    long nackedAt = System.currentTimeMillis();
    Answer n = post(ROOT, "/groups/" + tg[1] + "/nack", "{\"consumer\":\"c1\",\"delayMs\":500,\"records\":"
        + refs(tg[0], 0) + "}");
    assertThat(n.status()).isEqualTo(200);
    Answer again = receive(tg[1], "c2", tg[0], 1, 5000);
    assertThat(System.currentTimeMillis() - nackedAt).isGreaterThanOrEqualTo(450);
    assertThat(offsets(again)).containsExactly(0L);
    assertThat(attempt(again, 0)).isEqualTo(2);
  }

  @Test
  void anExpiredLeaseComesAgainToAnotherConsumer() throws Exception {
    String[] tg = topicAndGroup(2, "ack.timeout.ms", "1000");
    assertThat(offsets(receive(tg[1], "slow", tg[0], 2, 0))).containsExactly(0L, 1L);
    Answer again = receive(tg[1], "fast", tg[0], 2, 5000); // waits for the leases to run out
    assertThat(offsets(again)).containsExactly(0L, 1L);
    assertThat(attempt(again, 0)).isEqualTo(2);
    Answer late = settle(ROOT, "ack", tg[1], "slow", tg[0], 0, 1);
    assertThat(late.status()).isEqualTo(400);
    assertThat(late.code()).isEqualTo("NOT_LEASED");
    assertThat(late.body().getAsJsonArray("failures")).hasSize(2); // one per record named
    assertThat(settle(ROOT, "ack", tg[1], "fast", tg[0], 0, 1).status()).isEqualTo(200);
  }

  @Test
  void aRejectedRecordGoesToTheDeadLetterTopic() throws Exception {
    String[] tg = topicAndGroup(2);
    receive(tg[1], "c1", tg[0], 2, 0);
    Answer r = settle(ROOT, "reject", tg[1], "c1", tg[0], 1);
    assertThat(r.status()).isEqualTo(200);
    List<Record> dead = wire.readAll(tg[1] + ".dlq", 0);
    assertThat(dead).singleElement().satisfies(d -> assertThat(d.getValue().toStringUtf8()).isEqualTo("v1"));
    // Part applied, part not: 200, and the failures say which.
    Answer mixed = settle(ROOT, "ack", tg[1], "c1", tg[0], 0, 1);
    assertThat(mixed.status()).isEqualTo(200);
    assertThat(mixed.body().getAsJsonArray("failures")).singleElement().satisfies(f -> {
      assertThat(f.getAsJsonObject().get("offset").getAsLong()).isEqualTo(1);
      assertThat(f.getAsJsonObject().getAsJsonObject("error").get("code").getAsString()).isEqualTo("ALREADY_SETTLED");
    });
  }

  @Test
  void twoHttpConsumersAndAGrpcConsumerShareOneGroupAndSettleEachRecordOnce() throws Exception {
    int n = 300;
    String[] tg = topicAndGroup(n);
    String t = tg[0];
    String g = tg[1];
    Set<Long> settled = ConcurrentHashMap.newKeySet();
    List<Long> twice = Collections.synchronizedList(new ArrayList<>());
    AtomicInteger[] byConsumer = {new AtomicInteger(), new AtomicInteger(), new AtomicInteger()};
    try (AckStream grpc = new AckStream(root, g, "grpc", 5, t)) {
      List<Thread> threads = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        int me = i;
        Thread th = new Thread(() -> {
          try {
            while (settled.size() < n) {
              Answer a = receive(g, "http" + me, t, 7, 300);
              List<Long> got = offsets(a);
              if (got.isEmpty()) {
                continue;
              }
              Answer ack = settle(ROOT, "ack", g, "http" + me, t, got.stream().mapToLong(Long::longValue).toArray());
              assertThat(ack.body().getAsJsonArray("failures")).isEmpty();
              got.forEach(o -> {
                if (!settled.add(o)) {
                  twice.add(o);
                }
              });
              byConsumer[me].addAndGet(got.size());
            }
          } catch (Exception e) {
            throw new RuntimeException(e);
          }
        });
        th.start();
        threads.add(th);
      }
      long deadline = System.currentTimeMillis() + 60_000;
      while (settled.size() < n && System.currentTimeMillis() < deadline) {
        AckStream.Got got = grpc.records.poll(100, TimeUnit.MILLISECONDS);
        if (got != null) {
          grpc.ack(List.of(got));
          if (!settled.add(got.offset())) {
            twice.add(got.offset());
          }
          byConsumer[2].incrementAndGet();
        }
      }
      for (Thread th : threads) {
        th.join(30_000);
      }
    }
    assertThat(twice).isEmpty();
    assertThat(settled).hasSize(n);
    assertThat(byConsumer).allSatisfy(c -> assertThat(c.get()).isPositive());
    // The group settled everything: nothing comes again.
    assertThat(receive(g, "http0", t, 10, 300).records()).isEmpty();
  }

  @Test
  void aReceiveWithNothingToGiveEndsEmptyWhenItsWaitRunsOut() throws Exception {
    String[] tg = topicAndGroup(0);
    long start = System.nanoTime();
    Answer a = receive(tg[1], "c1", tg[0], 10, 700);
    long tookMs = (System.nanoTime() - start) / 1_000_000;
    assertThat(a.status()).isEqualTo(200);
    assertThat(a.records()).isEmpty();
    assertThat(tookMs).isBetween(650L, 5_000L);
  }

  @Test
  void aReceiveWhoseConnectionClosesWhileItWaitsTakesNothing() throws Exception {
    String[] tg = topicAndGroup(0);
    String body = "{\"consumer\":\"gone\",\"topics\":[\"" + tg[0] + "\"],\"waitMs\":20000}";
    try (Socket s = new Socket("127.0.0.1", broker.httpPort())) {
      OutputStream out = s.getOutputStream();
      out.write(("POST /groups/" + tg[1] + "/receive HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + ROOT
          + "\r\nContent-Type: application/json\r\nContent-Length: " + body.getBytes(StandardCharsets.UTF_8).length
          + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8));
      out.flush();
      Thread.sleep(500); // the receive waits
    }
    Thread.sleep(300);
    wire.produceValues(tg[0], 0, 1, "late");
    // Had the closed receive kept waiting, the record would be leased to it until the ack timeout (30 s).
    Answer a = receive(tg[1], "other", tg[0], 1, 5000);
    assertThat(offsets(a)).containsExactly(0L);
    assertThat(attempt(a, 0)).isEqualTo(1);
  }

  @Test
  void aRequestPipelinedBehindAWaitingReceiveIsAnsweredAfterIt() throws Exception {
    String[] tg = topicAndGroup(0);
    String body = "{\"consumer\":\"p\",\"topics\":[\"" + tg[0] + "\"],\"waitMs\":500}";
    try (Socket s = new Socket("127.0.0.1", broker.httpPort())) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(("POST /groups/" + tg[1] + "/receive HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + ROOT
          + "\r\nContent-Type: application/json\r\nContent-Length: " + body.getBytes(StandardCharsets.UTF_8).length
          + "\r\n\r\n" + body + "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
          .getBytes(StandardCharsets.UTF_8));
      out.flush();
      String answers = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int first = answers.indexOf("\"records\":[]");
      int second = answers.indexOf("\r\n\r\nok\n");
      assertThat(first).isPositive();
      assertThat(second).isGreaterThan(first);
    }
  }

  @Test
  void badInputIsAJson4xxSayingWhatIsWrong() throws Exception {
    String[] tg = topicAndGroup(1);
    String g = tg[1];
    Answer badJson = post(ROOT, "/groups/" + g + "/receive", "{\"consumer\":");
    assertThat(badJson.status()).isEqualTo(400);
    assertThat(badJson.code()).isEqualTo("INVALID_REQUEST");
    Answer wrongType = post(ROOT, "/groups/" + g + "/receive", "{\"consumer\":\"c\",\"topics\":[\"" + tg[0]
        + "\"],\"maxRecords\":\"x\"}");
    assertThat(wrongType.status()).isEqualTo(400);
    assertThat(wrongType.body().getAsJsonObject("error").get("message").getAsString()).contains("maxRecords");
    Answer unknownField = post(ROOT, "/groups/" + g + "/receive", "{\"consumer\":\"c\",\"topic\":\"x\"}");
    assertThat(unknownField.status()).isEqualTo(400);
    assertThat(unknownField.body().getAsJsonObject("error").get("message").getAsString()).contains("topic");
    Answer noConsumer = post(ROOT, "/groups/" + g + "/receive", "{\"topics\":[\"" + tg[0] + "\"]}");
    assertThat(noConsumer.status()).isEqualTo(400);
    Answer unknownTopic = receive(g, "c", "no-such-topic", 1, 0);
    assertThat(unknownTopic.status()).isEqualTo(404);
    assertThat(unknownTopic.code()).isEqualTo("UNKNOWN_TOPIC");
    Answer unknownGroup = settle(ROOT, "ack", "no-such-group", "c", tg[0], 0);
    assertThat(unknownGroup.status()).isEqualTo(404);
    assertThat(unknownGroup.code()).isEqualTo("UNKNOWN_GROUP");
    Answer unknownConsumer = settle(ROOT, "ack", g, "stranger", tg[0], 0);
    assertThat(unknownConsumer.status()).isEqualTo(404);
    assertThat(unknownConsumer.code()).isEqualTo("UNKNOWN_MEMBER_ID");
    receive(g, "c", tg[0], 1, 0);
    Answer notLeased = settle(ROOT, "ack", g, "c", tg[0], 7);
    assertThat(notLeased.status()).isEqualTo(400);
    assertThat(notLeased.code()).isEqualTo("NOT_LEASED");
    Answer badDelay = post(ROOT, "/groups/" + g + "/nack", "{\"consumer\":\"c\",\"delayMs\":-1,\"records\":"
        + refs(tg[0], 0) + "}");
    assertThat(badDelay.status()).isEqualTo(400);
    GroupServiceGrpc.newBlockingStub(root).createGroup(CreateGroupRequest.newBuilder().setGroup(g + "-offsets")
        .build());
    Answer offsetMode = receive(g + "-offsets", "c", tg[0], 1, 0);
    assertThat(offsetMode.status()).isEqualTo(400);
    assertThat(offsetMode.code()).isEqualTo("INCONSISTENT_GROUP_MODE");
  }

  @Test
  void receiveAndSettleNeedATokenAndConsumeOnGroupAndTopic() throws Exception {
    String[] tg = topicAndGroup(1);
    String body = "{\"consumer\":\"c\",\"topics\":[\"" + tg[0] + "\"]}";
    Answer none = post(null, "/groups/" + tg[1] + "/receive", body);
    assertThat(none.status()).isEqualTo(401);
    Answer noGroup = post(EVE, "/groups/" + tg[1] + "/receive", body);
    assertThat(noGroup.status()).isEqualTo(403);
    assertThat(noGroup.body().getAsJsonObject("error").get("message").getAsString()).contains("consume on group");
    Answer noTopic = post(EVE, "/groups/e-g/receive", body);
    assertThat(noTopic.status()).isEqualTo(403);
    assertThat(noTopic.body().getAsJsonObject("error").get("message").getAsString()).contains("consume on topic");
    assertThat(settle(EVE, "ack", "e-g", "c", tg[0], 0).status()).isEqualTo(403);
    // Root's consumer is root's: carl, who may consume there, can neither settle as it nor take it over.
    assertThat(offsets(receive(tg[1], "mine", tg[0], 1, 0))).containsExactly(0L);
    Answer notOwner = settle(CARL, "ack", tg[1], "mine", tg[0], 0);
    assertThat(notOwner.status()).isEqualTo(403);
    assertThat(notOwner.code()).isEqualTo("NOT_OWNER");
    Answer takeOver = post(CARL, "/groups/" + tg[1] + "/receive", "{\"consumer\":\"mine\",\"topics\":[\"" + tg[0]
        + "\"]}");
    assertThat(takeOver.code()).isEqualTo("NOT_OWNER");
    assertThat(settle(ROOT, "ack", tg[1], "mine", tg[0], 0).status()).isEqualTo(200);
  }

  @Test
  void aConsumerThatLeavesHandsItsLeasesBack() throws Exception {
    String[] tg = topicAndGroup(2);
    receive(tg[1], "c1", tg[0], 2, 0);
    Answer left = post(ROOT, "/groups/" + tg[1] + "/leave", "{\"consumer\":\"c1\"}");
    assertThat(left.status()).isEqualTo(204);
    assertThat(offsets(receive(tg[1], "c2", tg[0], 2, 0))).containsExactly(0L, 1L);
    assertThat(settle(ROOT, "ack", tg[1], "c1", tg[0], 0).code()).isEqualTo("UNKNOWN_MEMBER_ID");
  }
}
