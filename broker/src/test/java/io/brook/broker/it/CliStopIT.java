package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The brook commands that run until stopped (consume --follow, with or without a group, in offset
 * or ack mode; produce reading a stdin left open), stopped the way people and supervisors stop them:
 * SIGTERM or SIGINT (Ctrl-C) to the bin/brook launcher's JVM. A stop that finished its work (offsets
 * committed, settles applied, records flushed) exits 0; the JVM's own handling of those signals ends
 * the process with 128 + the signal (143, 130) whatever was done first.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class CliStopIT {
  static final int RECORDS = 300;

  @TempDir static Path dir;
  static BrokerProcess broker;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  // --- helpers

  static Exec.Result brook(Path stdin, String... args) throws IOException, InterruptedException {
    return Exec.run(CliIT.command(args), env(), stdin, dir.resolve("runs"));
  }

  static Exec.Result ok(Exec.Result r) throws IOException {
    assertThat(r.exitCode()).as("exit code of %s\n--- broker (alive: %s):\n%s", r, broker.isAlive(),
        broker.currentStartLog()).isZero();
    return r;
  }

  static Map<String, String> env() {
    return CliIT.withJava(Map.of("BROOK_BROKER", broker.address()));
  }

  /** A topic of 2 partitions holding "v0".."v{RECORDS-1}". */
  static void topicWithRecords(String topic) throws Exception {
    ok(brook(null, "topic", "create", topic, "--partitions", "2"));
    Path lines = Files.write(dir.resolve(topic + ".txt"),
        IntStream.range(0, RECORDS).mapToObj(i -> "k" + i % 7 + ":v" + i).toList());
    ok(brook(lines, "produce", topic, "--key-separator", ":"));
  }

  static CliGroupIT.Running start(String... args) throws IOException {
    ProcessBuilder pb = Exec.builder(CliIT.command(args), env(), null, dir.resolve("runs"));
    return new CliGroupIT.Running(pb, pb.start());
  }

  /** Sends SIGTERM or SIGINT (bin/brook execs the JVM: its pid is the process's) and waits for the exit. */
  static Exec.Result stop(CliGroupIT.Running running, String signal) throws Exception {
    assumeFalse(signal.equals("INT") && ignoresSigint(running.process().pid()),
        "skipped: this process inherited SIGINT ignored (started in the background without job control)");
    ok(Exec.run(List.of("kill", "-" + signal, Long.toString(running.process().pid())), Map.of(), null,
        dir.resolve("runs")));
    return Exec.await(running.builder(), running.process(), 60);
  }

  /** Bit 2 of SigIgn in /proc: a shell without job control starts background processes so. */
  static boolean ignoresSigint(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("SigIgn:")) {
        return (Long.parseLong(line.substring(7).trim(), 16) & 2) != 0;
      }
    }
    return false;
  }

  static Exec.Result assertStoppedCleanly(Exec.Result r) {
    assertThat(r.exitCode()).as("a clean stop: %s", r).isZero();
    assertThat(r.stderr()).as(r.toString()).doesNotContain("Exception");
    return r;
  }

  static void awaitPrinted(CliGroupIT.Running running, int lines) throws Exception {
    CliGroupIT.await(lines + " lines printed", 60, () -> running.lines().size() >= lines);
  }

  static void assertEveryRecordOnce(List<String> printed) {
    assertThat(printed).doesNotHaveDuplicates()
        .containsExactlyInAnyOrderElementsOf(IntStream.range(0, RECORDS).mapToObj(i -> "v" + i).toList());
  }

  // --- the tests

  @ParameterizedTest
  @ValueSource(strings = {"TERM", "INT"})
  void anOffsetGroupMemberStoppedBySignalCommitsLeavesAndExitsZero(String signal) throws Exception {
    String topic = "offsets-" + signal;
    topicWithRecords(topic);
    CliGroupIT.Running member = start("consume", topic, "--group", "g-" + signal, "--from", "earliest", "--follow");
    try {
      awaitPrinted(member, RECORDS);
      Exec.Result r = assertStoppedCleanly(stop(member, signal));
      assertEveryRecordOnce(r.lines());
    } finally {
      member.process().destroyForcibly();
    }
    CliGroupIT.Described d = describe("g-" + signal);
    assertThat(d.memberCount()).as("the member left: %s", d).isZero();
    assertThat(d.column(2)).as("committed = end offset").isEqualTo(d.column(3));
    assertThat(d.column(4).values()).as("lag").containsOnly("0");
  }

  @ParameterizedTest
  @ValueSource(strings = {"TERM", "INT"})
  void anAckMemberStoppedBySignalSettlesEverythingPrintedAndExitsZero(String signal) throws Exception {
    String topic = "acks-" + signal;
    topicWithRecords(topic);
    CliGroupIT.Running member = start("consume", topic, "--group", "q-" + signal, "--ack", "--from", "earliest",
        "--follow");
    try {
      awaitPrinted(member, RECORDS);
      Exec.Result r = assertStoppedCleanly(stop(member, signal));
      assertEveryRecordOnce(r.lines());
    } finally {
      member.process().destroyForcibly();
    }
    CliGroupIT.Described d = describe("q-" + signal);
    assertThat(d.header()).contains("mode: ack");
    assertThat(d.column(4).values()).as("lag: committed up to the end").containsOnly("0");
    assertThat(d.column(5).values()).as("unsettled").containsOnly("0");
  }

  @ParameterizedTest
  @ValueSource(strings = {"TERM", "INT"})
  void aFollowerWithoutAGroupStoppedBySignalPrintsEverythingAndExitsZero(String signal) throws Exception {
    String topic = "follow-" + signal;
    topicWithRecords(topic);
    CliGroupIT.Running follower = start("consume", topic, "--from", "earliest", "--follow");
    try {
      awaitPrinted(follower, RECORDS);
      assertEveryRecordOnce(assertStoppedCleanly(stop(follower, signal)).lines());
    } finally {
      follower.process().destroyForcibly();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"TERM", "INT"})
  void produceFromAnOpenStdinStoppedBySignalSendsWhatItReadAndExitsZero(String signal) throws Exception {
    String topic = "typed-" + signal;
    ok(brook(null, "topic", "create", topic));
    ProcessBuilder pb = Exec.builder(CliIT.command("produce", topic), env(), null, dir.resolve("runs"))
        .redirectInput(ProcessBuilder.Redirect.PIPE); // a terminal or a pipe left open: no end of input
    CliGroupIT.Running producer = new CliGroupIT.Running(pb, pb.start());
    try (OutputStream stdin = producer.process().getOutputStream()) {
      stdin.write(IntStream.range(0, RECORDS).mapToObj(i -> "v" + i + "\n").collect(Collectors.joining())
          .getBytes(StandardCharsets.UTF_8));
      stdin.flush();
      CliGroupIT.await("every line produced", 60, () -> endOffset(topic) == RECORDS);
      Exec.Result r = assertStoppedCleanly(stop(producer, signal));
      assertThat(r.stderr()).as(r.toString()).contains("Produced " + RECORDS + " records to " + topic);
    } finally {
      producer.process().destroyForcibly();
    }
    assertEveryRecordOnce(ok(brook(null, "consume", topic)).lines());
  }

  @ParameterizedTest
  @ValueSource(strings = {"one signal", "two signals"})
  void aStopThatCannotCommitExitsWithTheSignalsCodeAndSaysWhy(String signals) throws Exception {
    // A broker of its own, stopped under the member: its last commit cannot be made.
    BrokerProcess own = BrokerProcess.start(dir.resolve("own-" + signals.charAt(0)));
    Map<String, String> env = CliIT.withJava(Map.of("BROOK_BROKER", own.address()));
    CliGroupIT.Running member;
    try {
      ok(Exec.run(CliIT.command("topic", "create", "t"), env, null, dir.resolve("runs")));
      ok(Exec.run(CliIT.command("produce", "t"), env, Files.write(dir.resolve("t.txt"), List.of("x")),
          dir.resolve("runs")));
      ProcessBuilder pb = Exec.builder(CliIT.command("consume", "t", "--group", "g", "--from", "earliest",
          "--follow"), env, null, dir.resolve("runs"));
      member = new CliGroupIT.Running(pb, pb.start());
      awaitPrinted(member, 1);
    } finally {
      own.close();
    }
    try {
      if (signals.equals("one signal")) {
        // The commit waits for the broker (up to the client's 60 s api timeout): the stop's grace ends first.
        Exec.Result r = stop(member, "TERM");
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(143);
        assertThat(r.stderr()).as(r.toString())
            .contains("brook: not done 15 s after SIGTERM: stopping at once, without finishing cleanly");
      } else {
        ok(Exec.run(List.of("kill", "-TERM", Long.toString(member.process().pid())), Map.of(), null,
            dir.resolve("runs")));
        Thread.sleep(500);
        Exec.Result r = stop(member, "INT");
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(130);
        assertThat(r.stderr()).as(r.toString()).contains("brook: a second SIGINT: stopping at once");
      }
    } finally {
      member.process().destroyForcibly();
    }
  }

  static CliGroupIT.Described describe(String group) throws Exception {
    return CliGroupIT.parse(ok(brook(null, "group", "describe", group)).lines());
  }

  static long endOffset(String topic) throws Exception {
    return CliIT.partitionRows(ok(brook(null, "topic", "describe", topic))).values().stream()
        .mapToLong(row -> row[1]).sum();
  }
}
