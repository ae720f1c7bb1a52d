package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code brook forward} (D71) as people run it: bin/brook against a real broker whose config file
 * has two forward routes to a Kafka address that refuses connections (no Kafka needed: the routes
 * run, retry and lag), with /metrics and /stats showing the same routes.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CliForwardIT {
  static final List<String> METRICS = List.of("brook_forward_records_total", "brook_forward_bytes_total",
      "brook_forward_lag_records", "brook_forward_lag_seconds", "brook_forward_dropped_records_total",
      "brook_forward_errors_total", "brook_forward_state");

  @TempDir static Path dir;
  static BrokerProcess broker;
  static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    Path config = Files.writeString(dir.resolve("brook.properties"), """
        forward.orders.source=orders
        forward.orders.bootstrap.servers=127.0.0.1:1
        forward.sensors.source=sensor.*
        forward.sensors.target=edge.{topic}
        forward.sensors.bootstrap.servers=127.0.0.1:1
        """);
    broker = BrokerProcess.start(dir.resolve("data"), "--config", config.toString());
    ok(brook("topic", "create", "orders", "--partitions", "2"));
    Path lines = Files.write(dir.resolve("lines.txt"), IntStream.range(0, 10).mapToObj(i -> "k" + i + ":v" + i).toList());
    ok(Exec.run(CliIT.command("produce", "orders", "--key-separator", ":"),
        CliIT.withJava(Map.of("BROOK_BROKER", broker.address())), lines, dir.resolve("runs")));
  }

  @AfterAll
  static void stop() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  static Exec.Result brook(String... args) throws IOException, InterruptedException {
    return Exec.run(CliIT.command(args), CliIT.withJava(Map.of("BROOK_BROKER", broker.address())), null,
        dir.resolve("runs"));
  }

  static Exec.Result ok(Exec.Result r) throws IOException {
    assertThat(r.exitCode()).as("exit code of %s\n--- broker (alive: %s):\n%s", r, broker.isAlive(),
        broker.currentStartLog()).isZero();
    return r;
  }

  static String get(String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + broker.httpPort() + path)).build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  static JsonObject statsRoute(String name) throws Exception {
    JsonObject stats = JsonParser.parseString(get("/stats")).getAsJsonObject();
    assertThat(stats.has("forward")).as("/stats has a forward section: %s", stats.keySet()).isTrue();
    JsonArray routes = stats.getAsJsonArray("forward");
    for (var r : routes) {
      if (r.getAsJsonObject().get("route").getAsString().equals(name)) {
        return r.getAsJsonObject();
      }
    }
    throw new AssertionError("no route " + name + " in /stats: " + routes);
  }

  @Test
  void listShowsEveryConfiguredRoute() throws Exception {
    List<String> lines = ok(brook("forward", "list")).lines();
    assertThat(lines.get(0)).startsWith("ROUTE").contains("SOURCE", "TARGET", "STATE", "FORWARDED", "LAG", "ERRORS");
    assertThat(lines).hasSize(3);
    assertThat(lines.get(1)).matches("orders +orders +\\{topic} +[a-z-]+ +0 +.*");
    assertThat(lines.get(2)).matches("sensors +sensor\\.\\* +edge\\.\\{topic} +[a-z-]+ +0 +.*");
    // without ROUTE, status is list (the lag's age moves on between the two runs)
    assertThat(ok(brook("forward", "status")).lines()).extracting(l -> l.split(" +")[0])
        .containsExactly("ROUTE", "orders", "sensors");
  }

  @Test
  void statusShowsTheCursorOfEachSourcePartition() throws Exception {
    String out = ok(brook("forward", "status", "orders")).stdout();
    assertThat(out).contains("Source: orders  target: {topic}  bootstrap: 127.0.0.1:1", "Cursor group: __forward.orders",
        "Forwarded: 0 records, 0 bytes  lag: 10 records");
    List<String> table = out.lines().dropWhile(l -> !l.startsWith("TOPIC")).toList();
    assertThat(table).hasSize(3);
    long lag = table.stream().skip(1).mapToLong(l -> Long.parseLong(l.split(" +")[4])).sum();
    assertThat(lag).isEqualTo(10);
  }

  @Test
  void pauseAndResumeShowInTheCliTheMetricsAndStats() throws Exception {
    assertThat(ok(brook("forward", "pause", "sensors")).stdout()).isEqualTo("Paused forward route sensors (0 records behind)\n");
    assertThat(ok(brook("forward", "status", "sensors")).stdout()).startsWith("Route: sensors  state: paused\n");
    assertThat(get("/metrics")).contains("brook_forward_state{route=\"sensors\",state=\"PAUSED\"} 1.0");
    assertThat(statsRoute("sensors").get("state").getAsString()).isEqualTo("PAUSED");

    assertThat(ok(brook("forward", "resume", "sensors")).stdout()).startsWith("Resumed forward route sensors (state ");
    assertThat(ok(brook("forward", "status", "sensors")).stdout()).doesNotStartWith("Route: sensors  state: paused");
    assertThat(get("/metrics")).contains("brook_forward_state{route=\"sensors\",state=\"PAUSED\"} 0.0");
    assertThat(statsRoute("sensors").get("state").getAsString()).isNotEqualTo("PAUSED");
  }

  @Test
  void anUnknownRouteIsRefusedNamingTheRoutes() throws Exception {
    for (String op : List.of("status", "pause", "resume")) {
      Exec.Result r = brook("forward", op, "nope");
      assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
      assertThat(r.stderr()).isEqualTo("brook: no forward route 'nope' (routes: orders, sensors) (INVALID_REQUEST)\n");
    }
    assertThat(brook("forward", "pause").exitCode()).isEqualTo(2); // ROUTE missing: usage
  }

  @Test
  void theScrapeAndStatsHaveEveryRoute() throws Exception {
    String scrape = get("/metrics");
    for (String name : METRICS) {
      for (String route : List.of("orders", "sensors")) {
        assertThat(scrape).as(name + " of " + route).containsPattern("(?m)^" + name + "\\{[^}]*route=\"" + route + "\"");
      }
    }
    assertThat(scrape).contains("brook_forward_lag_records{route=\"orders\"} 10.0");
    JsonObject orders = statsRoute("orders");
    assertThat(orders.get("source").getAsString()).isEqualTo("orders");
    assertThat(orders.get("lag_records").getAsLong()).isEqualTo(10);
    assertThat(orders.getAsJsonArray("partitions")).hasSize(2);
  }
}
