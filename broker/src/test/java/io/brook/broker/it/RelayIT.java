package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.brook.protocol.v1.PartitionRecords;
import io.brook.protocol.v1.Record;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The REST relay (D69) on the real broker process, with java.net.http: produce (JSON, utf8 and
 * base64, headers, partitions; the binary form) and fetch round trips, long polls, bad input, limits,
 * the auth matrix, CORS, and the OpenAPI document against what is served. Auth is on: root may do
 * anything, alice produce on r-*, carol consume on r-*.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RelayIT {
  static final String ROOT = "root-token-1";
  static final String ALICE = "alice-token-1";
  static final String CAROL = "carol-token-1";
  static final String ORIGIN = "https://app.example.com";
  static final int MAX_REQUEST = 1 << 20;

  @TempDir static Path dir;
  static BrokerProcess broker;
  static String base;
  static Wire wire;

  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void startBroker() throws Exception {
    Path permissions = Files.writeString(dir.resolve("permissions"), """
        root * topic:*
        alice produce topic:r-*
        carol consume topic:r-*
        """);
    broker = BrokerProcess.start(dir.resolve("data"), "--set", "auth.enabled=true",
        "--set", "auth.tokens=root=" + ROOT + ",alice=" + ALICE + ",carol=" + CAROL,
        "--set", "auth.permissions.file=" + permissions, "--set", "http.cors.origins=" + ORIGIN,
        "--set", "max.request.bytes=" + MAX_REQUEST);
    base = "http://127.0.0.1:" + broker.httpPort();
    wire = new Wire(Wire.withToken(broker.channel(), ROOT));
    wire.create("r-orders", 3);
    wire.create("r-bin", 1);
    wire.create("r-poll", 1);
    wire.create("r-bad", 1);
    wire.create("r-auth", 1);
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  private HttpResponse<String> send(String method, String path, String token, String contentType, byte[] body,
      Map<String, String> headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    if (contentType != null) {
      b.header("Content-Type", contentType);
    }
    headers.forEach(b::header);
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> postJson(String path, String token, String json) throws Exception {
    return send("POST", path, token, "application/json", json.getBytes(StandardCharsets.UTF_8), Map.of());
  }

  private HttpResponse<String> get(String path, String token) throws Exception {
    return send("GET", path, token, null, null, Map.of());
  }

  private static JsonObject json(HttpResponse<String> r) {
    assertThat(r.headers().firstValue("content-type")).contains("application/json");
    return JsonParser.parseString(r.body()).getAsJsonObject();
  }

  /** Asserts a JSON refusal: HTTP status, code (null: none) and gRPC status, and returns its message. */
  private static String refused(HttpResponse<String> r, int status, String code, String grpcStatus) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    JsonObject error = json(r).getAsJsonObject("error");
    assertThat(error.has("code") ? error.get("code").getAsString() : null).as(r.body()).isEqualTo(code);
    assertThat(error.get("status").getAsString()).isEqualTo(grpcStatus);
    return error.get("message").getAsString();
  }

  @Test
  void jsonRecordsRoundTripInUtf8AndBase64AndGrpcReadsTheSameBytes() throws Exception {
    HttpResponse<String> produced = postJson("/topics/r-orders/records", ROOT, """
        {"records":[
          {"key":"k1","value":"héllo ✓","partition":1,"timestamp":1700000000000,
           "headers":[{"key":"trace","value":"t-1"},{"key":"raw","value":"AP8=","encoding":"base64"}]},
          {"value":"AAEC/w==","valueEncoding":"base64","partition":1},
          {"key":"k2","value":"third","partition":2}
        ]}""");
    assertThat(produced.statusCode()).as(produced.body()).isEqualTo(200);
    JsonArray offsets = json(produced).getAsJsonArray("offsets");
    assertThat(offsets.toString()).isEqualTo(
        "[{\"partition\":1,\"offset\":0},{\"partition\":1,\"offset\":1},{\"partition\":2,\"offset\":0}]");

    HttpResponse<String> fetched = get("/topics/r-orders/partitions/1/records?offset=0", CAROL);
    assertThat(fetched.statusCode()).as(fetched.body()).isEqualTo(200);
    JsonObject answer = json(fetched);
    assertThat(answer.get("nextOffset").getAsLong()).isEqualTo(2);
    assertThat(answer.get("logStartOffset").getAsLong()).isEqualTo(0);
    assertThat(answer.get("endOffset").getAsLong()).isEqualTo(2);
    JsonArray records = answer.getAsJsonArray("records");
    JsonObject first = records.get(0).getAsJsonObject();
    assertThat(first.get("key").getAsString()).isEqualTo("k1");
    assertThat(first.get("value").getAsString()).isEqualTo("héllo ✓");
    assertThat(first.get("timestamp").getAsLong()).isEqualTo(1700000000000L);
    assertThat(first.getAsJsonArray("headers").toString())
        .isEqualTo("[{\"key\":\"trace\",\"value\":\"t-1\"},{\"key\":\"raw\",\"value\":\"AP8=\",\"encoding\":\"base64\"}]");
    JsonObject second = records.get(1).getAsJsonObject();
    assertThat(second.get("key").isJsonNull()).isTrue();
    assertThat(second.get("value").getAsString()).isEqualTo("AAEC/w==");
    assertThat(second.get("valueEncoding").getAsString()).isEqualTo("base64");

    HttpResponse<String> asBase64 = get("/topics/r-orders/partitions/1/records?offset=0&max=1&encoding=base64", ROOT);
    JsonObject b64 = json(asBase64).getAsJsonArray("records").get(0).getAsJsonObject();
    assertThat(b64.get("value").getAsString()).isEqualTo("aMOpbGxvIOKckw==");
    assertThat(json(asBase64).get("nextOffset").getAsLong()).isEqualTo(1);

    // The same bytes over gRPC.
    List<Record> grpc = wire.readAll("r-orders", 1);
    assertThat(grpc.get(0).getValue().toStringUtf8()).isEqualTo("héllo ✓");
    assertThat(grpc.get(0).getHeaders(1).getValue().toByteArray()).containsExactly(0, 0xff);
    assertThat(grpc.get(1).getValue().toByteArray()).containsExactly(0, 1, 2, 0xff);
    assertThat(grpc.get(1).hasKey()).isFalse();

    // Records without a partition: the broker partitions them by key, like gRPC's.
    HttpResponse<String> keyed = postJson("/topics/r-orders/records?durability=synced", ROOT,
        "{\"records\":[{\"key\":\"k2\",\"value\":\"a\"},{\"key\":\"k2\",\"value\":\"b\"}]}");
    JsonArray byKey = json(keyed).getAsJsonArray("offsets");
    assertThat(byKey.get(0).getAsJsonObject().get("partition").getAsInt())
        .isEqualTo(byKey.get(1).getAsJsonObject().get("partition").getAsInt());
    assertThat(byKey.get(1).getAsJsonObject().get("offset").getAsLong())
        .isEqualTo(byKey.get(0).getAsJsonObject().get("offset").getAsLong() + 1);
  }

  @Test
  void theBinaryFormTakesOneRecordWithQueryKeyPartitionTimestampAndHeaders() throws Exception {
    byte[] value = {0, (byte) 0xff, 'x', (byte) 0xc3};
    HttpResponse<String> produced = send("POST",
        "/topics/r-bin/records?partition=0&key=%2FwE%3D&keyEncoding=base64&timestamp=42&header=a:b&header=c:d%3Ae",
        ALICE, "application/octet-stream", value, Map.of());
    assertThat(produced.statusCode()).as(produced.body()).isEqualTo(200);
    assertThat(json(produced).toString()).isEqualTo("{\"offsets\":[{\"partition\":0,\"offset\":0}]}");
    JsonObject r = json(get("/topics/r-bin/partitions/0/records?offset=0", ROOT)).getAsJsonArray("records").get(0)
        .getAsJsonObject();
    assertThat(r.get("key").getAsString()).isEqualTo("/wE="); // 0xff 0x01: not UTF-8, so base64 and marked
    assertThat(r.get("keyEncoding").getAsString()).isEqualTo("base64");
    assertThat(r.get("value").getAsString()).isEqualTo("AP94ww==");
    assertThat(r.get("timestamp").getAsLong()).isEqualTo(42);
    assertThat(r.getAsJsonArray("headers").toString())
        .isEqualTo("[{\"key\":\"a\",\"value\":\"b\"},{\"key\":\"c\",\"value\":\"d:e\"}]");
    // A body between the probes' 64 KiB and max.request.bytes is taken on a relay route.
    byte[] big = new byte[200 << 10];
    Arrays.fill(big, (byte) 'v');
    assertThat(send("POST", "/topics/r-bin/records", ROOT, "application/octet-stream", big, Map.of()).statusCode())
        .isEqualTo(200);
    assertThat(wire.readAll("r-bin", 0).get(1).getValue().size()).isEqualTo(200 << 10);
  }

  @Test
  void aLongPollAnswersWhenARecordArrivesAndEmptyWhenItsWaitEnds() throws Exception {
    long start = System.nanoTime();
    HttpResponse<String> empty = get("/topics/r-poll/partitions/0/records?offset=0&wait=700", ROOT);
    long emptyMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(empty.statusCode()).isEqualTo(200);
    assertThat(json(empty).getAsJsonArray("records")).isEmpty();
    assertThat(json(empty).get("nextOffset").getAsLong()).isEqualTo(0);
    assertThat(emptyMs).isBetween(650L, 5_000L);

    start = System.nanoTime();
    CompletableFuture<HttpResponse<String>> polling = http.sendAsync(HttpRequest.newBuilder(
        URI.create(base + "/topics/r-poll/partitions/0/records?offset=0&wait=20000"))
        .header("Authorization", "Bearer " + ROOT).build(), HttpResponse.BodyHandlers.ofString());
    Thread.sleep(500);
    assertThat(polling).isNotDone();
    assertThat(postJson("/topics/r-poll/records", ROOT, "{\"records\":[{\"value\":\"woke\"}]}").statusCode())
        .isEqualTo(200);
    HttpResponse<String> woken = polling.get(10, TimeUnit.SECONDS);
    long wokenMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(json(woken).getAsJsonArray("records").get(0).getAsJsonObject().get("value").getAsString())
        .isEqualTo("woke");
    assertThat(wokenMs).isLessThan(10_000L);
    // Many polls wait at once without a thread each: more than the broker's gRPC and read pools.
    List<CompletableFuture<HttpResponse<String>>> many = new java.util.ArrayList<>();
    for (int i = 0; i < 40; i++) {
      many.add(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().sendAsync(
          HttpRequest.newBuilder(URI.create(base + "/topics/r-poll/partitions/0/records?offset=1&wait=20000"))
              .header("Authorization", "Bearer " + ROOT).build(), HttpResponse.BodyHandlers.ofString()));
    }
    Thread.sleep(1000);
    assertThat(get("/topics/r-poll/partitions/0/records?offset=0", ROOT).statusCode()).isEqualTo(200);
    postJson("/topics/r-poll/records", ROOT, "{\"records\":[{\"value\":\"all\"}]}");
    for (CompletableFuture<HttpResponse<String>> f : many) {
      assertThat(json(f.get(10, TimeUnit.SECONDS)).getAsJsonArray("records")).hasSize(1);
    }
  }

  @Test
  void badInputIsAJsonRefusalNamingTheMistake() throws Exception {
    String path = "/topics/r-bad/records";
    assertThat(refused(postJson(path, ROOT, "{\"records\":[{\"value\":\"x\"}"), 400, "INVALID_REQUEST",
        "INVALID_ARGUMENT")).startsWith("bad JSON");
    assertThat(refused(postJson(path, ROOT, "{\"records\":[{\"value\":true}]}"), 400, "INVALID_REQUEST",
        "INVALID_ARGUMENT")).isEqualTo("records[0].value must be a string, got a boolean");
    assertThat(refused(postJson(path, ROOT, "{\"records\":[{\"value\":\"x\",\"partition\":\"0\"}]}"), 400,
        "INVALID_REQUEST", "INVALID_ARGUMENT")).isEqualTo("records[0].partition must be an integer, got a string");
    assertThat(refused(postJson(path, ROOT, "[]"), 400, "INVALID_REQUEST", "INVALID_ARGUMENT"))
        .contains("must be a JSON object");
    assertThat(refused(send("POST", path, ROOT, "text/plain", "x".getBytes(StandardCharsets.UTF_8), Map.of()), 415,
        "INVALID_REQUEST", "INVALID_ARGUMENT")).contains("Content-Type must be application/json");
    assertThat(refused(postJson(path + "?durability=fast", ROOT, "{\"records\":[{\"value\":\"x\"}]}"), 400,
        "INVALID_REQUEST", "INVALID_ARGUMENT")).contains("durability must be written or synced");
    assertThat(refused(postJson(path + "?partiton=1", ROOT, "{\"records\":[{\"value\":\"x\"}]}"), 400,
        "INVALID_REQUEST", "INVALID_ARGUMENT")).contains("unknown query parameter 'partiton'");
    // A record the core's validator refuses: the same code as gRPC's.
    assertThat(refused(postJson(path, ROOT, "{\"records\":[{\"value\":\"x\",\"partition\":5}]}"), 404,
        "UNKNOWN_PARTITION", "NOT_FOUND")).contains("no partition 5");
    assertThat(refused(postJson("/topics/r-none/records", ROOT, "{\"records\":[{\"value\":\"x\"}]}"), 404,
        "UNKNOWN_TOPIC", "NOT_FOUND")).contains("r-none");
    refused(get("/topics/r-none/partitions/0/records?offset=0", ROOT), 404, "UNKNOWN_TOPIC", "NOT_FOUND");
    refused(get("/topics/r-bad/partitions/7/records?offset=0", ROOT), 404, "UNKNOWN_PARTITION", "NOT_FOUND");
    refused(get("/topics/r-bad/partitions/x/records?offset=0", ROOT), 400, "INVALID_REQUEST", "INVALID_ARGUMENT");
    assertThat(refused(get("/topics/r-bad/partitions/0/records", ROOT), 400, "INVALID_REQUEST", "INVALID_ARGUMENT"))
        .contains("offset is required");
    refused(get("/topics/r-bad/partitions/0/records?offset=0&max=0", ROOT), 400, "INVALID_REQUEST", "INVALID_ARGUMENT");
    // Offset out of range: the code gRPC's fetch gives the same partition.
    String message = refused(get("/topics/r-bad/partitions/0/records?offset=99", ROOT), 400, "OFFSET_OUT_OF_RANGE",
        "OUT_OF_RANGE");
    PartitionRecords grpc = wire.fetchOne("r-bad", 0, 99, 10, 1000);
    assertThat(grpc.getErrorCode().name()).isEqualTo("ERROR_CODE_OFFSET_OUT_OF_RANGE");
    assertThat(message).isEqualTo(grpc.getErrorMessage());
    // Refused batches count in the metrics as gRPC's do.
    String metrics = get("/metrics", ROOT).body();
    assertThat(metrics.lines().filter(l -> l.startsWith("brook_rejected_requests_total{")
        && l.contains("reason=\"UNKNOWN_PARTITION\"") && !l.endsWith(" 0.0"))).isNotEmpty();
    assertThat(metrics.lines().filter(l -> l.startsWith("brook_produce_request_duration_seconds_count")
        && !l.endsWith(" 0.0"))).isNotEmpty();
    // Unknown paths and methods of the relay: JSON too.
    refused(get("/topics/r-bad", ROOT), 404, null, "NOT_FOUND");
    HttpResponse<String> delete = send("DELETE", path, ROOT, null, null, Map.of());
    refused(delete, 405, null, "UNIMPLEMENTED");
    assertThat(delete.headers().firstValue("allow")).contains("POST");
  }

  @Test
  void bodiesOverMaxRequestBytesAre413WithTheLimitWhetherDeclaredOrChunked() throws Exception {
    byte[] huge = new byte[MAX_REQUEST + 1];
    HttpResponse<String> declared = send("POST", "/topics/r-bad/records", ROOT, "application/octet-stream", huge,
        Map.of());
    assertThat(refused(declared, 413, null, "RESOURCE_EXHAUSTED")).contains("larger than " + MAX_REQUEST);
    assertThat(json(declared).getAsJsonObject("error").getAsJsonObject("metadata").toString())
        .isEqualTo("{\"limit\":\"max.request.bytes\",\"value\":\"" + MAX_REQUEST + "\"}");
    HttpResponse<String> chunked = http.send(HttpRequest.newBuilder(URI.create(base + "/topics/r-bad/records"))
        .header("Authorization", "Bearer " + ROOT).header("Content-Type", "application/octet-stream")
        .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(new byte[3 * MAX_REQUEST])))
        .build(), HttpResponse.BodyHandlers.ofString());
    refused(chunked, 413, null, "RESOURCE_EXHAUSTED");
    // The probes keep their 64 KiB.
    HttpResponse<String> probe = send("POST", "/healthz", null, "text/plain", new byte[70 << 10], Map.of());
    assertThat(probe.statusCode()).isEqualTo(413);
    assertThat(get("/healthz", null).statusCode()).isEqualTo(200);
  }

  @Test
  void authIsGrpcsTokensAndPermissions() throws Exception {
    String produce = "/topics/r-auth/records";
    String body = "{\"records\":[{\"value\":\"x\"}]}";
    HttpResponse<String> none = postJson(produce, null, body);
    assertThat(refused(none, 401, null, "UNAUTHENTICATED")).isEqualTo("no bearer token or client certificate");
    assertThat(none.headers().firstValue("www-authenticate")).contains("Bearer");
    assertThat(refused(postJson(produce, "wrong", body), 401, null, "UNAUTHENTICATED")).isEqualTo("unknown bearer token");
    assertThat(refused(send("POST", produce, null, "application/json", body.getBytes(StandardCharsets.UTF_8),
        Map.of("Authorization", "Basic eDp5")), 401, null, "UNAUTHENTICATED")).contains("Bearer <token>");
    assertThat(refused(postJson(produce, CAROL, body), 403, null, "PERMISSION_DENIED"))
        .isEqualTo("principal carol lacks produce on topic r-auth");
    assertThat(postJson(produce, ALICE, body).statusCode()).isEqualTo(200);
    String fetch = "/topics/r-auth/partitions/0/records?offset=0";
    refused(get(fetch, null), 401, null, "UNAUTHENTICATED");
    assertThat(refused(get(fetch, ALICE), 403, null, "PERMISSION_DENIED"))
        .isEqualTo("principal alice lacks consume on topic r-auth");
    assertThat(get(fetch, CAROL).statusCode()).isEqualTo(200);
    // A topic nobody but root may see: refused for lack of permission before it is looked up, as on gRPC.
    refused(postJson("/topics/secret/records", ALICE, body), 403, null, "PERMISSION_DENIED");
    // The document needs no token.
    assertThat(get("/openapi.json", null).statusCode()).isEqualTo(200);
  }

  @Test
  void corsPreflightAndAnswersForAllowedOriginsOnly() throws Exception {
    HttpResponse<String> preflight = send("OPTIONS", "/topics/r-orders/records", null, null, null,
        Map.of("Origin", ORIGIN, "Access-Control-Request-Method", "POST",
            "Access-Control-Request-Headers", "authorization, content-type"));
    assertThat(preflight.statusCode()).isEqualTo(204);
    assertThat(preflight.headers().firstValue("access-control-allow-origin")).contains(ORIGIN);
    assertThat(preflight.headers().firstValue("access-control-allow-methods")).contains("POST, OPTIONS");
    assertThat(preflight.headers().firstValue("access-control-allow-headers")).contains("Authorization, Content-Type");
    assertThat(preflight.headers().firstValue("access-control-max-age")).contains("600");
    HttpResponse<String> other = send("OPTIONS", "/topics/r-orders/records", null, null, null,
        Map.of("Origin", "https://evil.example.com", "Access-Control-Request-Method", "POST"));
    refused(other, 403, null, "PERMISSION_DENIED");
    assertThat(other.headers().firstValue("access-control-allow-origin")).isEmpty();
    HttpResponse<String> answer = send("POST", "/topics/r-orders/records", ROOT, "application/json",
        "{\"records\":[{\"value\":\"cors\"}]}".getBytes(StandardCharsets.UTF_8), Map.of("Origin", ORIGIN));
    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.headers().firstValue("access-control-allow-origin")).contains(ORIGIN);
    HttpResponse<String> refusedAnswer = postJson("/topics/r-orders/records", null, "{}");
    assertThat(refusedAnswer.headers().firstValue("access-control-allow-origin")).isEmpty();
  }

  @Test
  void everyOperationOfTheOpenApiDocumentIsServed() throws Exception {
    HttpResponse<String> doc = get("/openapi.json", null);
    JsonObject paths = json(doc).getAsJsonObject("paths");
    for (String template : paths.keySet()) {
      String path = template.replace("{topic}", "r-orders").replace("{partition}", "0").replace("{group}", "r-group");
      for (Map.Entry<String, JsonElement> op : paths.getAsJsonObject(template).entrySet()) {
        String method = op.getKey().toUpperCase(java.util.Locale.ROOT);
        HttpResponse<String> r = send(method, path, ROOT, method.equals("POST") ? "application/json" : null,
            method.equals("POST") ? "{}".getBytes(StandardCharsets.UTF_8) : null, Map.of());
        assertThat(r.statusCode()).as(method + " " + path + ": " + r.body()).isNotIn(404, 405);
      }
    }
  }
}
