package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.protocol.Partitioner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code brook} command as people run it: the bin/brook launcher against a real broker. The
 * topic {@code orders} (3 partitions, 20000 records "0".."19999") is created and filled once; the
 * test that alters and deletes it runs last.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CliIT {
  static final int RECORDS = 20_000;

  @TempDir static Path dir;
  static BrokerProcess broker;
  static Exec.Result created;
  static Exec.Result produced;
  static Instant afterProduce;

  @BeforeAll
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  static void startBrokerAndFillOrders() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
    created = ok(brook("topic", "create", "orders", "--partitions", "3"));
    Path lines = stdin("orders.txt", IntStream.range(0, RECORDS).mapToObj(Integer::toString).toList());
    produced = ok(brook(lines, "produce", "orders"));
    afterProduce = Instant.now();
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  // --- running the launcher

  static Exec.Result brook(String... args) throws IOException, InterruptedException {
    return brook(null, args);
  }

  static Exec.Result brook(Path stdin, String... args) throws IOException, InterruptedException {
    return brookWith(Map.of("BROOK_BROKER", broker.address()), stdin, args);
  }

  static Exec.Result brookWith(Map<String, String> env, Path stdin, String... args)
      throws IOException, InterruptedException {
    return Exec.run(command(args), withJava(env), stdin, dir.resolve("runs"));
  }

  static List<String> command(String... args) {
    String launcher = System.getProperty("brook.launcher");
    assertThat(launcher).as("system property brook.launcher (set by failsafe)").isNotNull();
    List<String> command = new ArrayList<>(List.of(launcher));
    command.addAll(List.of(args));
    return command;
  }

  /** The launcher runs the JDK the tests run on. */
  static Map<String, String> withJava(Map<String, String> env) {
    Map<String, String> all = new HashMap<>(env);
    all.put("BROOK_JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString());
    return all;
  }

  static Exec.Result ok(Exec.Result r) throws IOException {
    assertThat(r.exitCode()).as("exit code of %s\n--- broker (alive: %s):\n%s", r, broker.isAlive(),
        broker.currentStartLog()).isZero();
    return r;
  }

  static Path stdin(String name, List<String> lines) throws IOException {
    return Files.write(dir.resolve(name), lines, StandardCharsets.UTF_8);
  }

  /** {@code topic describe}'s partition rows: partition → [start, end, records, bytes, segments]. */
  static Map<Integer, long[]> partitionRows(Exec.Result describe) {
    Map<Integer, long[]> rows = new TreeMap<>();
    for (String line : describe.lines()) {
      if (line.matches("\\d+\\s+.*")) {
        String[] f = line.trim().split("\\s+");
        rows.put(Integer.parseInt(f[0]), new long[] {Long.parseLong(f[1]), Long.parseLong(f[2]),
            Long.parseLong(f[3]), Long.parseLong(f[4]), Long.parseLong(f[5])});
      }
    }
    return rows;
  }

  // --- the tests

  @Test
  @Order(1)
  void topicCreateSaysWhatItCreatedAndListShowsIt() throws Exception {
    assertThat(created.stdout()).matches("Created topic orders with 3 partitions \\(id [0-9a-f-]{36}\\)\\R");

    assertThat(ok(brook("topic", "list")).lines()).contains("orders");
  }

  @Test
  void produceReportsTheCountOnStderrAndKeepsStdoutClean() {
    assertThat(produced.stderr()).contains("Produced " + RECORDS + " records to orders");
    assertThat(produced.stdout()).isEmpty();
  }

  @Test
  void consumeFromEarliestWithMaxPrintsExactlyThatManyRecords() throws Exception {
    List<String> all = ok(brook("consume", "orders", "--from", "earliest", "--max", "20000")).lines();
    assertThat(all).hasSize(RECORDS);
    assertThat(Set.copyOf(all)).isEqualTo(IntStream.range(0, RECORDS).mapToObj(Integer::toString)
        .collect(Collectors.toSet()));

    assertThat(ok(brook("consume", "orders", "--max", "7")).lines()).hasSize(7);
  }

  @Test
  void consumeWithoutMaxReadsEveryPartitionToItsEndInOffsetOrderAndExits() throws Exception {
    List<String> lines = ok(brook("consume", "orders", "--format", "%p %o %v")).lines();

    assertThat(lines).hasSize(RECORDS);
    Map<Integer, List<Long>> offsets = new TreeMap<>();
    Set<String> values = new HashSet<>();
    for (String line : lines) {
      String[] f = line.split(" ");
      offsets.computeIfAbsent(Integer.parseInt(f[0]), p -> new ArrayList<>()).add(Long.parseLong(f[1]));
      values.add(f[2]);
    }
    assertThat(values).hasSize(RECORDS);
    assertThat(offsets.keySet()).containsExactly(0, 1, 2);
    offsets.forEach((p, os) -> assertThat(os).as("partition %d", p)
        .isEqualTo(IntStream.range(0, os.size()).mapToObj(i -> (long) i).toList()));
  }

  @Test
  void consumeOnePartitionFromAnOffset() throws Exception {
    // Keyless lines go a batch at a time to each partition in turn: take the fullest.
    Map.Entry<Integer, long[]> fullest = partitionRows(ok(brook("topic", "describe", "orders"))).entrySet().stream()
        .max(Map.Entry.comparingByValue(java.util.Comparator.comparingLong(row -> row[1]))).orElseThrow();
    int partition = fullest.getKey();
    long end = fullest.getValue()[1];
    assertThat(end).isGreaterThan(5);

    List<String> lines = ok(brook("consume", "orders", "--partition", Integer.toString(partition), "--from", "5",
        "--format", "%p/%o")).lines();

    assertThat(lines).isEqualTo(IntStream.range(5, (int) end).mapToObj(o -> partition + "/" + o).toList());
  }

  @Test
  void consumeFromATimeAfterTheLastRecordPrintsNothingAndSucceeds() throws Exception {
    String after = afterProduce.truncatedTo(ChronoUnit.MILLIS).plusMillis(1).toString();

    Exec.Result r = ok(brook("consume", "orders", "--from-time", after));

    assertThat(r.stdout()).isEmpty();
    assertThat(ok(brook("consume", "orders", "--from-time", "2000-01-01", "--max", "5")).lines())
        .as("a time before every record starts at the beginning").hasSize(5);
  }

  @Test
  void keyedRecordsOfOneKeyAlwaysLandInTheSamePartitionAsKafkaWouldPutThem() throws Exception {
    ok(brook("topic", "create", "keyed", "--partitions", "3"));
    // 100 keys, each on 200 lines, so a key's records span many batches.
    Path lines = stdin("keyed.txt", IntStream.range(0, RECORDS).mapToObj(i -> "key-" + i % 100 + ":value-" + i)
        .toList());
    assertThat(ok(brook(lines, "produce", "keyed", "--key-separator", ":")).stderr())
        .contains("Produced " + RECORDS + " records to keyed");

    List<String> consumed = ok(brook("consume", "keyed", "--format", "%p %k %v")).lines();

    assertThat(consumed).hasSize(RECORDS);
    Map<String, Set<Integer>> partitionsOfKey = new HashMap<>();
    for (String line : consumed) {
      String[] f = line.split(" ");
      int i = Integer.parseInt(f[2].substring("value-".length()));
      assertThat(f[1]).as("the key of %s", line).isEqualTo("key-" + i % 100);
      partitionsOfKey.computeIfAbsent(f[1], k -> new HashSet<>()).add(Integer.parseInt(f[0]));
    }
    assertThat(partitionsOfKey).hasSize(100);
    partitionsOfKey.forEach((key, ps) -> assertThat(ps).as(key)
        .containsExactly(Partitioner.partitionForKey(key.getBytes(StandardCharsets.UTF_8), 3)));
    assertThat(partitionsOfKey.values().stream().flatMap(Set::stream).distinct()).hasSize(3);
  }

  @Test
  void formatShowsKeysValuesAndTheHeadersGivenToProduce() throws Exception {
    ok(brook("topic", "create", "headed"));
    Path lines = stdin("headed.txt", List.of("k1:v1", "no key here", ":empty key"));
    // A header name may repeat (records keep every header, in order).
    ok(brook(lines, "produce", "headed", "-H", "a=1", "-H", "b=2", "-H", "a=3", "--key-separator", ":"));

    List<String> out = ok(brook("consume", "headed", "--format", "%o [%k] [%v] [%h] 100%%")).lines();

    assertThat(out).containsExactly("0 [k1] [v1] [a=1,b=2,a=3] 100%", "1 [] [no key here] [a=1,b=2,a=3] 100%",
        "2 [] [empty key] [a=1,b=2,a=3] 100%");
  }

  @Test
  void followWithMaxReturnsAfterThatManyNewRecordsFromAnotherProducer() throws Exception {
    ok(brook("topic", "create", "live"));
    ProcessBuilder pb = Exec.builder(command("consume", "live", "--follow", "--max", "3"),
        withJava(Map.of("BROOK_BROKER", broker.address())), null, dir.resolve("runs"));
    Process follower = pb.start();
    try {
      // The follower starts at the end it sees when it subscribes: produce one record at a time
      // until it has had three, whenever it began listening.
      int sent = 0;
      while (sent < 30 && follower.isAlive()) {
        ok(brook(stdin("live.txt", List.of("n-" + sent)), "produce", "live"));
        sent++;
        follower.waitFor(1, TimeUnit.SECONDS);
      }
      Exec.Result r = Exec.await(pb, follower, 30);

      assertThat(r.exitCode()).as(r.toString()).isZero();
      assertThat(r.lines()).hasSize(3);
      int first = Integer.parseInt(r.lines().get(0).substring(2));
      assertThat(r.lines()).containsExactly("n-" + first, "n-" + (first + 1), "n-" + (first + 2));
      assertThat(first + 2).isLessThan(sent);
    } finally {
      follower.destroyForcibly();
    }
  }

  @Test
  void describeShowsEachPartitionsOffsetsAndBytesAndTheTotals() throws Exception {
    Exec.Result r = ok(brook("topic", "describe", "orders"));
    List<String> lines = r.lines();

    assertThat(lines.get(0)).startsWith("Topic: orders  id: ").endsWith("partitions: 3");
    assertThat(lines.get(1)).startsWith("Config: ").contains("retention.ms=604800000", "segment.roll=1h");
    assertThat(lines.get(2).trim().split("\\s+"))
        .containsExactly("PARTITION", "START-OFFSET", "END-OFFSET", "RECORDS", "BYTES", "SEGMENTS");
    Map<Integer, long[]> rows = partitionRows(r);
    assertThat(rows.keySet()).containsExactly(0, 1, 2);
    rows.forEach((p, row) -> {
      assertThat(row[0]).as("start of %d", p).isZero();
      assertThat(row[2]).as("records of %d", p).isEqualTo(row[1] - row[0]);
      assertThat(row[3]).as("bytes of %d", p).isPositive();
    });
    assertThat(rows.values().stream().mapToLong(row -> row[1]).sum()).isEqualTo(RECORDS);
    long bytes = rows.values().stream().mapToLong(row -> row[3]).sum();
    assertThat(lines.get(lines.size() - 1).trim().split("\\s+"))
        .containsExactly("TOTAL", Integer.toString(RECORDS), Long.toString(bytes));
  }

  @Test
  void produceWithCompressionStoresCompressedBatchesThatConsumeReadsBack() throws Exception {
    ok(brook("topic", "create", "zipped", "--partitions", "1"));
    List<String> values = IntStream.range(0, 2000).mapToObj(i -> "line-" + i).toList();
    ok(brook(stdin("zipped.txt", values), "produce", "zipped", "-z", "zstd", "--linger-ms", "50"));

    assertThat(ok(brook("consume", "zipped", "--from", "earliest")).lines()).containsExactlyElementsOf(values);
    // What is stored: the dump (a snapshot beside the running broker) names each batch's codec.
    Exec.Result dump = ok(brook("dump", broker.dataDir().resolve("topics/zipped/0").toString()));
    assertThat(dump.lines()).filteredOn(l -> l.startsWith("batch ")).isNotEmpty()
        .allSatisfy(l -> assertThat(l).contains("compression=zstd"));

    Exec.Result badCodec = brook(stdin("bad-codec.txt", List.of("x")), "produce", "zipped", "--compression", "brotli");
    assertThat(badCodec.exitCode()).as(badCodec.toString()).isEqualTo(2);
    assertThat(badCodec.stderr()).contains("--compression: unknown compression brotli; one of none, gzip, snappy, lz4, zstd")
        .doesNotContain("Exception");
  }

  @Test
  void errorsExitWithTheirCodesAndSayWhy() throws Exception {
    Exec.Result unknown = brook("consume", "nosuch");
    assertThat(unknown.exitCode()).as(unknown.toString()).isEqualTo(1);
    assertThat(unknown.stderr()).contains("unknown topic 'nosuch'");
    assertThat(unknown.stdout()).isEmpty();

    Exec.Result badFrom = brook("consume", "orders", "--from", "nonsense");
    assertThat(badFrom.exitCode()).as(badFrom.toString()).isEqualTo(2);
    assertThat(badFrom.stderr()).contains("--from must be earliest, latest or an offset, got 'nonsense'");

    Exec.Result badHeader = brook(stdin("bad-header.txt", List.of("x")), "produce", "orders", "-H", "novalue");
    assertThat(badHeader.exitCode()).as(badHeader.toString()).isEqualTo(2);
    assertThat(badHeader.stderr()).contains("--header must be NAME=VALUE (got 'novalue')");

    Exec.Result badOption = brook("topic", "list", "--bogus");
    assertThat(badOption.exitCode()).as(badOption.toString()).isEqualTo(2);
    assertThat(badOption.stderr()).contains("--bogus");

    Exec.Result unreachable = brookWith(Map.of("BROOK_BROKER", "127.0.0.1:1"), null, "topic", "list");
    assertThat(unreachable.exitCode()).as(unreachable.toString()).isEqualTo(3);
    assertThat(unreachable.stderr()).contains("cannot reach the broker at 127.0.0.1:1");

    Exec.Result traversal = brook("topic", "create", "../etc");
    assertThat(traversal.exitCode()).as(traversal.toString()).isEqualTo(1);
    assertThat(traversal.stderr()).contains("invalid topic name '../etc'");
    assertThat(dir.resolve("data/etc")).doesNotExist();
    assertThat(dir.resolve("etc")).doesNotExist();
  }

  @Test
  @Order(Integer.MAX_VALUE)
  void alterThenDeleteOrders() throws Exception {
    ok(brook("topic", "alter", "orders", "--set", "retention.ms=1000"));
    assertThat(ok(brook("topic", "describe", "orders")).lines().get(1)).contains("retention.ms=1000");

    Map<Integer, long[]> before = partitionRows(ok(brook("topic", "describe", "orders")));
    Exec.Result grown = ok(brook("topic", "alter", "orders", "--partitions", "4"));
    assertThat(grown.lines().get(0)).endsWith("partitions: 4");
    Map<Integer, long[]> after = partitionRows(grown);
    assertThat(after.keySet()).containsExactly(0, 1, 2, 3);
    assertThat(after.get(3)[1]).as("the new partition is empty").isZero();
    for (int p = 0; p < 3; p++) {
      assertThat(after.get(p)[1]).as("end of %d", p).isEqualTo(before.get(p)[1]);
    }

    assertThat(ok(brook("topic", "delete", "orders")).stdout()).contains("Deleted topic orders");
    Exec.Result gone = brook("topic", "describe", "orders");
    assertThat(gone.exitCode()).as(gone.toString()).isEqualTo(1);
    assertThat(gone.stderr()).contains("unknown topic");
    assertThat(ok(brook("topic", "list")).lines()).doesNotContain("orders");
  }
}
