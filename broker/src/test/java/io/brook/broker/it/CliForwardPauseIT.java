package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code brook forward pause} holds across a restart and {@code resume} forwards what waited (D71 over
 * D68): a source Brook forwards a route into a second Brook serving Kafka's protocol (as ForwardIT),
 * operated with bin/brook only.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class CliForwardPauseIT {
  @TempDir Path dir;
  BrokerProcess source;
  BrokerProcess target;

  @AfterEach
  void stop() throws Exception {
    if (source != null) {
      source.close();
    }
    if (target != null) {
      target.close();
    }
  }

  Exec.Result brook(Path stdin, String... args) throws IOException, InterruptedException {
    return Exec.run(CliIT.command(args), CliIT.withJava(Map.of("BROOK_BROKER", source.address())), stdin,
        dir.resolve("runs"));
  }

  Exec.Result ok(Exec.Result r) throws IOException {
    assertThat(r.exitCode()).as("exit code of %s\n--- broker:\n%s", r, source.currentStartLog()).isZero();
    return r;
  }

  void produce(int from, int to) throws Exception {
    Path lines = Files.write(dir.resolve("lines-" + from + ".txt"),
        IntStream.range(from, to).mapToObj(i -> "k" + i + ":v" + i).toList());
    ok(brook(lines, "produce", "orders", "--key-separator", ":"));
  }

  /** `brook forward status orders` once it satisfies {@code done}, or the last one after 60 s. */
  String statusWhen(Predicate<String> done) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    String out;
    do {
      out = ok(brook(null, "forward", "status", "orders")).stdout();
      if (done.test(out)) {
        return out;
      }
      Thread.sleep(200);
    } while (System.nanoTime() < deadline);
    return out;
  }

  @Test
  void aPauseOutlivesARestartAndResumeForwardsWhatWaited() throws Exception {
    int kafkaPort = BrokerStartIT.freePort();
    target = BrokerProcess.start(dir.resolve("target"), "--set", "kafka.listen=127.0.0.1:" + kafkaPort);
    Path config = Files.writeString(dir.resolve("source.properties"), String.join("\n",
        "forward.orders.source=orders", "forward.orders.bootstrap.servers=127.0.0.1:" + kafkaPort,
        "forward.orders.create.target=true", "forward.orders.backoff.max.ms=1000", ""));
    source = BrokerProcess.start(dir.resolve("source"), "--config", config.toString());
    ok(brook(null, "topic", "create", "orders", "--partitions", "2"));

    produce(0, 20);
    assertThat(statusWhen(s -> s.contains("Forwarded: 20 records") && s.contains("lag: 0 records")))
        .contains("state: running", "Forwarded: 20 records", "lag: 0 records");
    assertThat(ForwardIT.readAll(target, "orders", 20)).hasSize(20);

    assertThat(ok(brook(null, "forward", "pause", "orders")).stdout())
        .isEqualTo("Paused forward route orders (0 records behind)\n");
    produce(20, 30);
    Thread.sleep(1500); // time a running route would have used to forward them
    assertThat(statusWhen(s -> s.contains("lag: 10 records"))).contains("state: paused", "lag: 10 records");

    assertThat(source.stop()).isZero();
    source.restart();
    String afterRestart = statusWhen(s -> s.contains("state: paused"));
    assertThat(afterRestart).as("the pause is kept with the cursor").contains("state: paused");
    // The cursor still stands where the pause left it: 20 of the 30 records (the route's own lag is not
    // shown here: a route paused since the start has not listed its partitions yet, so it reports 0).
    String cursor = ok(brook(null, "group", "describe", "__forward.orders")).stdout();
    long committed = cursor.lines().filter(l -> l.startsWith("orders "))
        .mapToLong(l -> Long.parseLong(l.split(" +")[2])).sum();
    assertThat(committed).as(cursor).isEqualTo(20);
    assertThat(ok(brook(null, "forward", "list")).lines().get(1)).contains(" paused ");

    assertThat(ok(brook(null, "forward", "resume", "orders")).stdout()).startsWith("Resumed forward route orders");
    assertThat(statusWhen(s -> s.contains("Forwarded: 10 records") && s.contains("lag: 0 records")))
        .contains("Forwarded: 10 records", "lag: 0 records"); // counts start again with the broker
    List<String> values = ForwardIT.readAll(target, "orders", 30).stream().map(r -> new String(r.value())).toList();
    assertThat(values).containsExactlyInAnyOrderElementsOf(IntStream.range(0, 30).mapToObj(i -> "v" + i).toList());
  }
}
