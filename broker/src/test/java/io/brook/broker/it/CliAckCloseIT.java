package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code brook consume --group G --ack} stopping: every ack of a record it printed reaches the
 * broker before the process exits, or the process names the acks that did not and exits 1. The
 * bin/brook launcher against a real broker.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class CliAckCloseIT {
  @TempDir Path dir;
  BrokerProcess broker;

  @BeforeEach
  void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
  }

  @AfterEach
  void stop() throws Exception {
    broker.close();
  }

  Exec.Result brook(Path stdin, String... args) throws IOException, InterruptedException {
    return Exec.run(CliIT.command(args), CliIT.withJava(Map.of("BROOK_BROKER", broker.address())), stdin,
        dir.resolve("runs"));
  }

  Exec.Result ok(Exec.Result r) throws IOException {
    assertThat(r.exitCode()).as("exit code of %s\n--- broker (alive: %s):\n%s", r, broker.isAlive(),
        broker.currentStartLog()).isZero();
    return r;
  }

  CliGroupIT.Described describe(String group) throws Exception {
    return CliGroupIT.parse(ok(brook(null, "group", "describe", group)).lines());
  }

  static List<String> numbers(int from, int to) {
    return IntStream.rangeClosed(from, to).mapToObj(Integer::toString).toList();
  }

  /**
   * The reproduction, several times over: 1..100 produced, {@code consume --ack --max 50}
   * prints 1..50 and exits 0, the group has committed 50, and the next consume prints 51..100 and
   * nothing of 1..50. Acks leave every millisecond here, so that the background sender often holds
   * some when the consumer closes.
   */
  @Test
  void acksOfWhatConsumeMaxPrintedAllReachTheBrokerBeforeItExits() throws Exception {
    Path lines = Files.write(dir.resolve("1-100.txt"), numbers(1, 100));
    for (int round = 0; round < 5; round++) {
      String topic = "q" + round;
      String group = "work" + round;
      ok(brook(null, "topic", "create", topic, "--partitions", "1"));
      ok(brook(lines, "produce", topic));
      ok(brook(null, "group", "create", group, "--mode", "ack", "--config", "auto.offset.reset=earliest"));

      Exec.Result first = ok(brook(null, "consume", topic, "--group", group, "--ack", "--max", "50",
          "--ack-flush-ms", "1"));
      assertThat(first.lines()).as("round %d", round).isEqualTo(numbers(1, 50));
      assertThat(first.stderr()).as("round %d", round).isEmpty();
      // Unsettled is not asserted here: the broker may have leased 51..100 to the closing consumer
      // (its acks made room), which handed them back when its stream ended.
      assertThat(describe(group).column(2)).as("round %d: committed", round).containsEntry(0, "50");

      Exec.Result next = ok(brook(null, "consume", topic, "--group", group, "--ack", "--idle-ms", "1000"));
      assertThat(next.lines()).as("round %d: the rest, and nothing acked before", round)
          .containsExactlyInAnyOrderElementsOf(numbers(51, 100));
      CliGroupIT.Described d = describe(group);
      assertThat(d.column(2)).as("round %d: committed", round).containsEntry(0, "100");
      assertThat(d.column(5)).as("round %d: unsettled", round).containsEntry(0, "0");
    }
  }

  /**
   * A consumer that stops at --max after acking what it printed: the broker leased it more records
   * meanwhile (its acks made room), which it never printed and handed back as it closed. Those
   * deliveries did not reach anyone, so with max.delivery.attempts=1 they must not be dead-lettered:
   * the next consume prints them.
   */
  @Test
  void recordsLeasedToAConsumerAsItStopsAtMaxSpendNoAttempt() throws Exception {
    Path lines = Files.write(dir.resolve("1-100.txt"), numbers(1, 100));
    for (int round = 0; round < 3; round++) {
      String topic = "once" + round;
      String group = "strict" + round;
      ok(brook(null, "topic", "create", topic, "--partitions", "1"));
      ok(brook(lines, "produce", topic));
      ok(brook(null, "group", "create", group, "--mode", "ack", "--config", "auto.offset.reset=earliest",
          "--config", "max.delivery.attempts=1"));
      for (int from = 1; from <= 91; from += 10) {
        Exec.Result part = ok(brook(null, "consume", topic, "--group", group, "--ack", "--max", "10"));
        assertThat(part.lines()).as("round %d, from %d", round, from).isEqualTo(numbers(from, from + 9));
      }
      CliGroupIT.Described d = describe(group);
      assertThat(d.column(6)).as("round %d: dead-lettered", round).containsEntry(0, "0");
      assertThat(d.column(2)).as("round %d: committed", round).containsEntry(0, "100");
    }
  }

  /**
   * The broker goes away while the consumer idles with acks not yet sent (they leave once a minute
   * here): at the end it waits for the broker (10 s), then names every ack it could not send and
   * exits 1. Those records were not acked, so they come again.
   */
  @Test
  void acksThatCannotReachTheBrokerAreNamedAndTheExitCodeIsOne() throws Exception {
    ok(brook(null, "topic", "create", "q", "--partitions", "1"));
    ok(brook(Files.write(dir.resolve("1-30.txt"), numbers(1, 30)), "produce", "q"));
    ok(brook(null, "group", "create", "work", "--mode", "ack", "--config", "auto.offset.reset=earliest"));
    ProcessBuilder pb = Exec.builder(CliIT.command("consume", "q", "--group", "work", "--ack", "--ack-flush-ms", "60000",
        "--idle-ms", "8000"), CliIT.withJava(Map.of("BROOK_BROKER", broker.address())), null, dir.resolve("runs"));
    Process consume = pb.start();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (Files.readAllLines(pb.redirectOutput().file().toPath()).size() < 30) {
        assertThat(System.nanoTime() - deadline).as("30 records printed within 60 s").isNegative();
        Thread.sleep(50);
      }
      broker.stop(); // within the 8 s the consumer waits for more records
      Exec.Result r = Exec.await(pb, consume, 60);
      assertThat(r.lines()).isEqualTo(numbers(1, 30));
      assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
      assertThat(r.stderr()).as(r.toString())
          .contains("brook: settling q:0 offsets 0..29 failed: not sent: no stream to the broker within PT10S (NOT_SENT)")
          .contains("1 settlement was not applied, or not confirmed");
    } finally {
      consume.destroyForcibly();
    }
    broker.restart();
    Exec.Result again = ok(brook(null, "consume", "q", "--group", "work", "--ack", "--idle-ms", "1000"));
    assertThat(again.lines()).as("not acked: delivered again").containsExactlyInAnyOrderElementsOf(numbers(1, 30));
  }
}
