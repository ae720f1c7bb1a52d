package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.ByteString;
import io.brook.protocol.v1.Record;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code brook dump} through bin/brook on the files of a real broker: beside the running broker (a
 * snapshot, with a warning), after kill -9 (agrees with what fetch returned), on bad input (exit 2),
 * and on a corrupted segment (exit 1). The corruption test runs last.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DumpIT {
  @TempDir static Path dir;
  static BrokerProcess broker;
  static List<Record> fetched;
  static Path partition0;

  @BeforeAll
  static void fillATopicThenKillTheBroker() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
    Wire wire = new Wire(broker.channel());
    wire.create("orders", 2);
    for (int b = 0; b < 5; b++) {
      List<Record> batch = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        batch.add(Wire.keyed("key-" + b + "-" + i, "value-" + i));
      }
      wire.produce("orders", 0, batch);
    }
    wire.produce("orders", 0, List.of(Record.newBuilder().setKey(ByteString.copyFrom(new byte[] {0, (byte) 0xff}))
        .setValue(ByteString.copyFromUtf8("binary-key")).build()));
    wire.produceValues("orders", 1, 3, "p1-");
    fetched = wire.readAll("orders", 0);
    partition0 = broker.dataDir().resolve("topics/orders/0");
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  static Exec.Result dump(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(CliIT.command("dump"));
    command.addAll(Arrays.asList(args));
    return Exec.run(command, CliIT.withJava(Map.of()), null, dir.resolve("runs"));
  }

  static void noStackTrace(Exec.Result r) {
    assertThat(r.stderr()).doesNotContain("Exception").doesNotContain("\tat ");
  }

  @Test
  @Order(1)
  void besideARunningBrokerItIsASnapshotAndSaysSo() throws Exception {
    Exec.Result r = dump(partition0.toString());
    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.stderr()).contains("a broker holds the data directory", "snapshot");
    assertThat(r.lines()).last().asString().contains("records=201", "tail=clean");
  }

  @Test
  @Order(2)
  void afterKillMinus9TheDumpAgreesWithWhatFetchReturned() throws Exception {
    broker.kill9();
    Exec.Result text = dump(partition0.toString(), "--records");
    assertThat(text.exitCode()).as(text.toString()).isZero();
    assertThat(text.stderr()).isEmpty();
    List<String> lines = text.lines();
    assertThat(lines.get(0)).isEqualTo("partition " + partition0);
    assertThat(lines).filteredOn(l -> l.startsWith("batch ")).hasSize(6)
        .allSatisfy(l -> assertThat(l).contains("crc=ok", "size=", "appended=", "first.ts=", "max.ts="));
    List<String> records = lines.stream().filter(l -> l.startsWith("  record ")).toList();
    assertThat(records).hasSize(fetched.size());
    for (int i = 0; i < 200; i++) {
      Record r = fetched.get(i);
      assertThat(records.get(i)).startsWith("  record offset=" + r.getOffset() + " ")
          .contains("key=\"" + r.getKey().toStringUtf8() + "\"", "value.size=" + r.getValue().size(), "headers=0");
    }
    assertThat(records.get(200)).contains("offset=200", "key=0x00ff", "value.size=10");
    assertThat(lines.get(lines.size() - 1)).startsWith("summary ")
        .contains("batches=6", "records=201", "first=0", "last=200", "gaps=0", "overlaps=0", "checksum.failures=0")
        .endsWith(" ok");

    Exec.Result json = dump(partition0.toString(), broker.dataDir().resolve("topics/orders/1").toString(), "--json",
        "--records");
    assertThat(json.exitCode()).as(json.toString()).isZero();
    List<JsonObject> objects = json.lines().stream().map(l -> JsonParser.parseString(l).getAsJsonObject()).toList();
    List<JsonObject> summaries = objects.stream().filter(o -> o.get("type").getAsString().equals("summary")).toList();
    assertThat(summaries).hasSize(2);
    assertThat(summaries.get(0).get("records").getAsLong()).isEqualTo(201);
    assertThat(summaries.get(0).get("last_offset").getAsLong()).isEqualTo(200);
    assertThat(summaries.get(0).get("corrupt").getAsBoolean()).isFalse();
    assertThat(summaries.get(0).get("broker_running").getAsBoolean()).isFalse();
    assertThat(summaries.get(1).get("records").getAsLong()).isEqualTo(3);
    JsonObject firstRecord = objects.stream().filter(o -> o.get("type").getAsString().equals("record")).findFirst()
        .orElseThrow();
    assertThat(firstRecord.get("key").getAsString()).isEqualTo(fetched.get(0).getKey().toStringUtf8());
    assertThat(objects.stream().filter(o -> o.get("type").getAsString().equals("record"))
        .filter(o -> o.has("key_hex")).map(o -> o.get("key_hex").getAsString())).containsExactly("00ff");
  }

  @Test
  @Order(3)
  void badInputIsExitCode2WithAClearMessage() throws Exception {
    Exec.Result missing = dump(dir.resolve("nowhere").toString());
    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.stderr()).contains("does not exist");
    noStackTrace(missing);

    Exec.Result topicDir = dump(broker.dataDir().resolve("topics/orders").toString());
    assertThat(topicDir.exitCode()).isEqualTo(2);
    assertThat(topicDir.stderr()).contains("is a topic directory", "orders/0");
    noStackTrace(topicDir);

    Exec.Result noArgs = dump();
    assertThat(noArgs.exitCode()).isEqualTo(2);
    assertThat(noArgs.stderr()).contains("Missing required parameter");
  }

  @Test
  @Order(4)
  void aCorruptedSegmentIsExitCode1AndNamesTheBatch() throws Exception {
    byte[] needle = "value-17".getBytes(StandardCharsets.UTF_8);
    Path segment;
    try (Stream<Path> files = Files.list(partition0)) {
      segment = files.filter(f -> f.toString().endsWith(".cq4")).findFirst().orElseThrow();
    }
    byte[] all = Files.readAllBytes(segment);
    int at = -1;
    for (int i = 0; i + needle.length <= all.length && at < 0; i++) {
      if (Arrays.equals(all, i, i + needle.length, needle, 0, needle.length)) {
        at = i;
      }
    }
    assertThat(at).isPositive();
    try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(new byte[] {'V'}), at);
    }

    Exec.Result r = dump(partition0.toString());
    assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
    assertThat(r.stdout()).contains("crc=BAD");
    assertThat(r.stderr()).contains("is CORRUPT", "checksum.failures=1", "checksum mismatch in the batch at offset 0");
    noStackTrace(r);
  }
}
