package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code brook consume --group} (offset and ack mode) and {@code brook group} as people run them:
 * the bin/brook launcher against a real broker. The topic {@code shared} (4 partitions, 2000 keyed
 * records "v0".."v1999") is filled once; each test uses groups of its own.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class CliGroupIT {
  static final int RECORDS = 2000;
  static final Set<String> ALL = IntStream.range(0, RECORDS).mapToObj(i -> "v" + i).collect(Collectors.toSet());

  @TempDir static Path dir;
  static BrokerProcess broker;

  @BeforeAll
  static void startBrokerAndFillShared() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
    ok(brook("topic", "create", "shared", "--partitions", "4"));
    produce("shared", IntStream.range(0, RECORDS).mapToObj(i -> "k" + i % 97 + ":v" + i).toList());
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  // --- helpers

  static Exec.Result brook(String... args) throws IOException, InterruptedException {
    return brook(null, args);
  }

  static Exec.Result brook(Path stdin, String... args) throws IOException, InterruptedException {
    return Exec.run(CliIT.command(args), CliIT.withJava(Map.of("BROOK_BROKER", broker.address())), stdin,
        dir.resolve("runs"));
  }

  static Exec.Result ok(Exec.Result r) throws IOException {
    assertThat(r.exitCode()).as("exit code of %s\n--- broker (alive: %s):\n%s", r, broker.isAlive(),
        broker.currentStartLog()).isZero();
    return r;
  }

  static void produce(String topic, List<String> keyedLines) throws Exception {
    Path lines = Files.write(dir.resolve(topic + "-" + System.nanoTime() + ".txt"), keyedLines);
    ok(brook(lines, "produce", topic, "--key-separator", ":"));
  }

  /** A brook command left running (consume --follow), its output in files. */
  record Running(ProcessBuilder builder, Process process) {
    String stdout() throws IOException {
      return Files.readString(builder.redirectOutput().file().toPath());
    }

    List<String> lines() throws IOException {
      return stdout().lines().toList();
    }

    /** SIGTERM (handled as Ctrl-C is: the command finishes its work and exits 0) and wait. */
    Exec.Result terminate() throws Exception {
      process.destroy();
      return Exec.await(builder, process, 30);
    }
  }

  static Running start(String... args) throws IOException {
    ProcessBuilder pb = Exec.builder(CliIT.command(args), CliIT.withJava(Map.of("BROOK_BROKER", broker.address())),
        null, dir.resolve("runs"));
    return new Running(pb, pb.start());
  }

  static void await(String what, long seconds, Check condition) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!condition.holds()) {
      assertThat(System.nanoTime() - deadline).as("waited %d s for: %s", seconds, what).isNegative();
      Thread.sleep(100);
    }
  }

  interface Check {
    boolean holds() throws Exception;
  }

  /** {@code group describe}: the header line and its partition rows (columns split on spaces). */
  record Described(String header, List<String[]> members, List<String[]> partitions) {
    int memberCount() {
      return Integer.parseInt(header.replaceAll(".*members: (\\d+).*", "$1"));
    }

    /** Column `name` of the partition table, by partition, as text. */
    Map<Integer, String> column(int index) {
      Map<Integer, String> m = new TreeMap<>();
      partitions.forEach(row -> m.put(Integer.parseInt(row[1]), row[index]));
      return m;
    }
  }

  static Described describe(String group) throws Exception {
    return parse(ok(brook("group", "describe", group)).lines());
  }

  /** For waits: null while the group does not exist (yet). */
  static Described describeIfExists(String group) throws Exception {
    Exec.Result r = brook("group", "describe", group);
    return r.exitCode() == 0 ? parse(r.lines()) : null;
  }

  static Described parse(List<String> lines) {
    List<String[]> members = new ArrayList<>();
    List<String[]> partitions = new ArrayList<>();
    boolean inPartitions = false;
    for (String line : lines.subList(2, lines.size())) {
      String[] f = line.trim().split("\\s+");
      if (line.isBlank()) {
        continue;
      }
      if (f[0].equals("TOPIC")) {
        inPartitions = true;
      } else if (!f[0].equals("MEMBER-ID")) {
        (inPartitions ? partitions : members).add(f);
      }
    }
    return new Described(lines.get(0), members, partitions);
  }

  /** Every line "v<i>" of these outputs, checked to occur once over all of them. */
  static void assertEachRecordOnce(List<String> printed) {
    Map<String, Long> counts = printed.stream().collect(Collectors.groupingBy(v -> v, Collectors.counting()));
    assertThat(counts.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList())
        .as("printed more than once").isEmpty();
    assertThat(counts.keySet()).isEqualTo(ALL);
  }

  // --- offset mode

  @Test
  void twoFollowingMembersShareThePartitionsPrintEveryRecordOnceAndCommitOnCtrlC() throws Exception {
    ok(brook("topic", "create", "pairs", "--partitions", "4"));
    Running a = start("consume", "pairs", "--group", "pair", "--from", "earliest", "--follow");
    Running b = null;
    try {
      await("a joined", 60, () -> {
        Described d = describeIfExists("pair");
        return d != null && d.memberCount() == 1;
      });
      b = start("consume", "pairs", "--group", "pair", "--from", "earliest", "--follow");
      await("a and b both own partitions", 60, () -> {
        Described d = describe("pair");
        return d.memberCount() == 2 && d.header().contains("state: stable")
            && d.members().stream().allMatch(m -> m[3].startsWith("pairs:"));
      });
      // Produced now, so that both print some.
      produce("pairs", IntStream.range(0, RECORDS).mapToObj(i -> "k" + i % 97 + ":v" + i).toList());
      Running rb = b;
      await("every record printed", 60, () -> a.lines().size() + rb.lines().size() >= RECORDS);

      Exec.Result ra = a.terminate();
      Exec.Result rbDone = b.terminate();
      for (Exec.Result r : List.of(ra, rbDone)) {
        assertThat(r.exitCode()).as(r.toString()).isZero();
        assertThat(r.stderr()).as(r.toString()).doesNotContain("Exception");
      }
      assertThat(ra.lines()).as("a printed some").isNotEmpty();
      assertThat(rbDone.lines()).as("b printed some").isNotEmpty();
      List<String> both = new ArrayList<>(ra.lines());
      both.addAll(rbDone.lines());
      assertEachRecordOnce(both);

      Described d = describe("pair");
      assertThat(d.memberCount()).as("both left: %s", d).isZero();
      assertThat(d.partitions()).hasSize(4);
      assertThat(d.column(4).values()).as("lag of each partition").containsOnly("0");
    } finally {
      a.process().destroyForcibly();
      if (b != null) {
        b.process().destroyForcibly();
      }
    }
  }

  @Test
  void withoutFollowAMemberReadsToTheEndCommitsAndResetToEarliestReadsAllAgain() throws Exception {
    Exec.Result first = ok(brook("consume", "shared", "--group", "once", "--from", "earliest", "--format", "%v"));
    assertEachRecordOnce(first.lines());

    Described d = describe("once");
    assertThat(d.memberCount()).isZero();
    assertThat(d.header()).contains("mode: offset", "state: empty");
    assertThat(d.column(0)).hasSize(4).allSatisfy((p, topic) -> assertThat(topic).isEqualTo("shared"));
    assertThat(d.column(4).values()).as("lag").containsOnly("0");
    assertThat(d.column(2)).as("committed = end offset").isEqualTo(d.column(3));

    assertThat(ok(brook("consume", "shared", "--group", "once", "--from", "earliest")).stdout())
        .as("everything is committed: nothing more to print").isEmpty();

    Exec.Result dry = ok(brook("group", "reset", "once", "--to", "earliest", "--dry-run"));
    assertThat(dry.stdout()).contains("Dry run: nothing changed (4 partitions of group once would be reset)");
    assertThat(describe("once").column(4).values()).as("a dry run changes nothing").containsOnly("0");

    Exec.Result reset = ok(brook("group", "reset", "once", "--to", "earliest"));
    assertThat(reset.stdout()).contains("Reset 4 partitions of group once");
    assertThat(describe("once").column(2).values()).as("committed after the reset").containsOnly("0");

    assertEachRecordOnce(ok(brook("consume", "shared", "--group", "once")).lines());
  }

  @Test
  void maxCommitsExactlyPastTheLastRecordPrintedAndTheNextMemberGoesOnFromThere() throws Exception {
    // A poll returns at most 500 records: the second one holds more than --max leaves room for.
    List<String> first = ok(brook("consume", "shared", "--group", "limited", "--from", "earliest", "--max", "700"))
        .lines();
    assertThat(first).hasSize(700);
    long committed = describe("limited").column(2).values().stream().filter(v -> !v.equals("-"))
        .mapToLong(Long::parseLong).sum();
    assertThat(committed).as("sum of committed offsets").isEqualTo(700);

    List<String> rest = ok(brook("consume", "shared", "--group", "limited", "--from", "earliest")).lines();
    List<String> both = new ArrayList<>(first);
    both.addAll(rest);
    assertEachRecordOnce(both);
  }

  @Test
  void resetAndDeleteAreRefusedWhileAMemberIsConnectedThenDeleteWorks() throws Exception {
    Running member = start("consume", "shared", "--group", "busy", "--follow");
    try {
      await("the member joined", 60, () -> {
        Described d = describeIfExists("busy");
        return d != null && d.memberCount() == 1;
      });

      Exec.Result reset = brook("group", "reset", "busy", "--to", "earliest");
      assertThat(reset.exitCode()).as(reset.toString()).isEqualTo(1);
      assertThat(reset.stderr()).contains("cannot reset the offsets of group busy while it has members",
          "GROUP_NOT_EMPTY");
      Exec.Result delete = brook("group", "delete", "busy");
      assertThat(delete.exitCode()).as(delete.toString()).isEqualTo(1);
      assertThat(delete.stderr()).contains("cannot delete group busy while it has members");

      Exec.Result stopped = member.terminate();
      assertThat(stopped.exitCode()).as(stopped.toString()).isZero();
    } finally {
      member.process().destroyForcibly();
    }
    assertThat(describe("busy").memberCount()).as("the member left on SIGTERM").isZero();
    assertThat(ok(brook("group", "list")).lines()).anyMatch(l -> l.matches("busy\\s+offset\\s+empty\\s+0\\s+brook"));

    assertThat(ok(brook("group", "delete", "busy")).stdout()).contains("Deleted group busy");
    assertThat(ok(brook("group", "list")).lines()).noneMatch(l -> l.startsWith("busy "));
    Exec.Result gone = brook("group", "describe", "busy");
    assertThat(gone.exitCode()).as(gone.toString()).isEqualTo(1);
    assertThat(gone.stderr()).contains("UNKNOWN_GROUP");
  }

  @Test
  void groupOptionsThatMakeNoSenseAreUsageErrors() throws Exception {
    Map<List<String>, String> cases = new HashMap<>();
    cases.put(List.of("consume", "shared", "--group", "g", "--partition", "1"), "--partition cannot be used with --group");
    cases.put(List.of("consume", "shared", "--group", "g", "--from-time", "2026-01-01"),
        "--from-time cannot be used with --group");
    cases.put(List.of("consume", "shared", "--group", "g", "--from", "5"), "--from with --group must be earliest or latest");
    cases.put(List.of("consume", "shared", "--ack"), "--ack needs --group");
    cases.put(List.of("consume", "shared", "--group", "g", "--nack-every", "2"), "--nack-every needs --group and --ack");
    cases.put(List.of("consume", "shared", "--group", "g", "--ack-flush-ms", "5"), "--ack-flush-ms needs --group and --ack");
    cases.put(List.of("consume", "shared", "--group", "g", "--ack", "--ack-flush-ms", "-1"),
        "--ack-flush-ms must be between 0 and 60000");
    cases.put(List.of("group", "reset", "g", "--to", "soon"), "--to must be earliest, latest or an offset");
    for (Map.Entry<List<String>, String> c : cases.entrySet()) {
      Exec.Result r = brook(c.getKey().toArray(String[]::new));
      assertThat(r.exitCode()).as(r.toString()).isEqualTo(2);
      assertThat(r.stderr()).as(r.toString()).contains(c.getValue());
    }
    assertThat(ok(brook("group", "list")).lines()).noneMatch(l -> l.startsWith("g "));
  }

  // --- ack mode

  @Test
  void ackModePrintsEveryRecordAcksItAndLeavesNothingUnsettled() throws Exception {
    Exec.Result r = ok(brook("consume", "shared", "--group", "queue", "--ack", "--from", "earliest", "--format",
        "%a %v", "--idle-ms", "1500"));

    List<String> values = new ArrayList<>();
    for (String line : r.lines()) {
      String[] f = line.split(" ");
      assertThat(f[0]).as("first delivery: %s", line).isEqualTo("1");
      values.add(f[1]);
    }
    assertEachRecordOnce(values);

    Described d = describe("queue");
    assertThat(d.header()).contains("mode: ack");
    assertThat(d.partitions()).hasSize(4);
    assertThat(d.column(4).values()).as("lag").containsOnly("0");
    assertThat(d.column(5).values()).as("unsettled").containsOnly("0");
  }

  @Test
  void nackEveryOtherRecordDeliversThoseAgainWithTheNextAttempt() throws Exception {
    ok(brook("topic", "create", "few"));
    produce("few", IntStream.range(0, 20).mapToObj(i -> "k:n" + i).toList());
    Exec.Result created = ok(brook("group", "create", "redo", "--mode", "ack", "--config", "auto.offset.reset=earliest",
        "--config", "max.delivery.attempts=-1"));
    assertThat(created.stdout()).contains("Created group redo (mode ack)", "max.delivery.attempts=-1");

    Exec.Result r = ok(brook("consume", "few", "--group", "redo", "--ack", "--nack-every", "2", "--format", "%o %a %v",
        "--idle-ms", "1500"));

    Map<String, List<Integer>> attempts = new TreeMap<>();
    for (String line : r.lines()) {
      String[] f = line.split(" ");
      attempts.computeIfAbsent(f[2], v -> new ArrayList<>()).add(Integer.parseInt(f[1]));
    }
    assertThat(attempts.keySet()).isEqualTo(IntStream.range(0, 20).mapToObj(i -> "n" + i).collect(Collectors.toSet()));
    attempts.forEach((v, as) -> assertThat(as).as("attempts printed for %s", v)
        .isEqualTo(IntStream.rangeClosed(1, as.size()).boxed().toList()));
    long redelivered = attempts.values().stream().filter(as -> as.size() >= 2).count();
    assertThat(redelivered).as("records delivered twice or more: %s", attempts).isGreaterThanOrEqualTo(10);
    assertThat(r.lines()).anyMatch(l -> l.split(" ")[1].equals("2"));

    Described d = describe("redo");
    assertThat(d.column(5).values()).as("unsettled").containsOnly("0");
    assertThat(Long.parseLong(d.column(7).get(0))).as("redeliveries").isGreaterThanOrEqualTo(10);
  }

  @Test
  void ackModeWithMaxStopsAfterThatManyAndHandsTheRestToTheNextMember() throws Exception {
    List<String> first = ok(brook("consume", "shared", "--group", "split", "--ack", "--from", "earliest", "--max", "300"))
        .lines();
    assertThat(first).hasSize(300);
    List<String> rest = ok(brook("consume", "shared", "--group", "split", "--ack", "--idle-ms", "1500")).lines();
    List<String> both = new ArrayList<>(first);
    both.addAll(rest);
    assertEachRecordOnce(both);
  }

  @Test
  void describeShowsAStaticMembersInstanceId() throws Exception {
    io.brook.protocol.v1.JoinGroupResponse joined = io.brook.protocol.v1.GroupServiceGrpc
        .newBlockingStub(broker.channel()).withDeadlineAfter(30, TimeUnit.SECONDS)
        .joinGroup(io.brook.protocol.v1.JoinGroupRequest.newBuilder().setGroup("static-describe")
            .setClientId("billing").addTopics("shared").setInstanceId("billing-host-1").build());
    String out = ok(brook("group", "describe", "static-describe")).stdout();
    String memberLine = out.lines().filter(l -> l.startsWith(joined.getMemberId())).findFirst().orElse("");
    assertThat(out).contains("INSTANCE-ID");
    assertThat(memberLine).as("the member's row in:%n%s", out).endsWith("billing-host-1");
  }
}
