package io.brook.client.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.it.BrokerProcess;
import io.brook.client.admin.BrookAdmin;
import io.brook.client.admin.GroupInfo;
import io.brook.client.admin.GroupOffset;
import io.brook.client.it.examples.AckConsumerExample;
import io.brook.client.it.examples.AdminExample;
import io.brook.client.it.examples.CooperativeExample;
import io.brook.client.it.examples.MetricsExample;
import io.brook.client.it.examples.OffsetsExample;
import io.brook.client.it.examples.PartitionerExample;
import io.brook.client.it.examples.PatternExample;
import io.brook.client.it.examples.ProducerExample;
import io.brook.client.it.examples.StaticMemberExample;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The examples of the client docs, run against a real broker: what they print is what the docs show. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ExamplesIT {
  @TempDir static Path dir;
  static BrokerProcess broker;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
  }

  @AfterAll
  static void stop() throws Exception {
    broker.close();
  }

  /** Runs a main and returns its stdout lines. */
  static List<String> run(Runnable main) {
    PrintStream original = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      main.run();
    } finally {
      System.setOut(original);
    }
    String printed = out.toString(StandardCharsets.UTF_8);
    original.print(printed);
    return printed.lines().toList();
  }

  @Test
  void ackConsumerExample() throws Exception {
    TestData data = new TestData(broker.channel());
    data.createTopic("jobs", 1);
    data.produce("jobs", 0, List.of(TestData.value("job-1"), TestData.value("retry-2"), TestData.value("poison-3"),
        TestData.value("job-4")));

    List<String> lines = run(() -> AckConsumerExample.main(new String[] {broker.address()}));

    assertThat(lines).containsExactlyInAnyOrder("got job-1 (attempt 1)", "got retry-2 (attempt 1)",
        "got poison-3 (attempt 1)", "got job-4 (attempt 1)", "got retry-2 (attempt 2)",
        "done: 5 deliveries, 0 settle failures");
    assertThat(lines.get(lines.size() - 1)).startsWith("done:");
    try (BrookAdmin admin = BrookAdmin.create(broker.address())) {
      GroupInfo g = admin.describeGroup("workers");
      assertThat(g.partitions().get(0).committedOffset()).as("all settled").isEqualTo(4);
      assertThat(g.partitions().get(0).deadLetteredRecords()).isEqualTo(1);
      assertThat(g.partitions().get(0).redeliveries()).isEqualTo(1);
    }
  }

  @Test
  void producerExampleWritesElevenOrders() {
    TestData data = new TestData(broker.channel());
    data.createTopic("orders", 3);
    List<String> lines = run(() -> ProducerExample.main(new String[] {broker.address()}));
    assertThat(lines).hasSize(1);
    assertThat(lines.get(0)).matches("order 10 is at orders-[0-2] offset \\d+");
    List<String> values = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      data.readAll("orders", p).forEach(r -> values.add(r.getValue().toStringUtf8()));
    }
    assertThat(values).hasSize(11).contains("order 0", "order 9", "order 10");
  }

  @Test
  void metricsExample() {
    new TestData(broker.channel()).createTopic("metrics-orders", 3);
    List<String> lines = run(() -> MetricsExample.main(new String[] {broker.address(), "metrics-orders"}));
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0)).isEqualTo("records sent: 10.0");
    assertThat(lines.get(1)).matches("batches: [1-9]\\d*, average batch: \\d+ bytes, buffer used: 0 of 33554432 bytes");
  }

  @Test
  void adminExample() {
    List<String> lines = run(() -> AdminExample.main(new String[] {broker.address()}));
    assertThat(lines).startsWith("created example-orders with 3 partitions",
        "now 4 partitions, retention.ms=3600000",
        "cannot create it twice: TOPIC_ALREADY_EXISTS",
        "created group example-workers in mode ACK, max.delivery.attempts=3");
    assertThat(lines).contains("group example-workers: ACK, EMPTY, 0 members");
    assertThat(lines.get(lines.size() - 1)).isEqualTo("deleted group example-workers and topic example-orders");
  }

  @Test
  void partitionerExampleSendsVipsToTheLastPartition() {
    TestData data = new TestData(broker.channel());
    data.createTopic("audit", 3);
    data.produce("audit", 0, List.of(TestData.value("earlier")));
    List<String> lines = run(() -> PartitionerExample.main(new String[] {broker.address()}));
    assertThat(lines).containsExactly("audit-0 holds 1 records", "audit-1 holds 0 records",
        "audit-2 holds 0 records", "vip-7 went to audit-2");
    assertThat(data.readAll("audit", 2)).extracting(r -> r.getValue().toStringUtf8()).containsExactly("logged in");
  }

  @Test
  void offsetsExampleReadsTheUnpausedPartitionAndCommitsWithMetadata() {
    TestData data = new TestData(broker.channel());
    data.createTopic("invoices", 2);
    data.produce("invoices", 0, List.of(TestData.value("inv-1"), TestData.value("inv-2")));
    data.produce("invoices", 1, List.of(TestData.value("inv-3")));
    List<String> lines = run(() -> OffsetsExample.main(new String[] {broker.address()}));
    assertThat(lines).containsExactly("read invoices-0@0 inv-1", "read invoices-0@1 inv-2",
        "committed invoices-0 at 2 (batch-17)", "paused now: []");
    try (BrookAdmin admin = BrookAdmin.create(broker.address())) {
      assertThat(admin.listGroupOffsets("invoicing")).extracting(GroupOffset::partition, GroupOffset::offset,
          GroupOffset::metadata).containsExactly(org.assertj.core.groups.Tuple.tuple(0, 2L, "batch-17"));
    }
  }

  @Test
  void patternExampleReadsTheTopicsItsPatternMatches() {
    TestData data = new TestData(broker.channel());
    for (String topic : List.of("orders-eu", "orders-us", "refunds")) {
      data.createTopic(topic, 1);
    }
    data.produce("orders-eu", 0, List.of(TestData.value("eu-1")));
    data.produce("orders-us", 0, List.of(TestData.value("us-1")));
    data.produce("refunds", 0, List.of(TestData.value("r-1")));
    List<String> lines = run(() -> PatternExample.main(new String[] {broker.address()}));
    assertThat(lines).hasSize(3);
    assertThat(lines.subList(0, 2)).containsExactlyInAnyOrder("read orders-eu-0@0 eu-1", "read orders-us-0@0 us-1");
    assertThat(lines.get(2)).isEqualTo("subscribed to [orders-eu, orders-us]");
  }

  @Test
  void cooperativeExampleRevokesOnlyThePartitionThatMoves() {
    new TestData(broker.channel()).createTopic("tickets", 2);
    List<String> lines = run(() -> {
      try {
        CooperativeExample.main(new String[] {broker.address()});
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    assertThat(lines).containsExactly("a assigned [tickets-0, tickets-1]", "a revoked [tickets-1]",
        "b assigned [tickets-1]");
  }

  @Test
  void staticMemberExampleRestartsIntoTheSamePartitionsAndGeneration() {
    TestData data = new TestData(broker.channel());
    data.createTopic("tasks", 2);
    data.produce("tasks", 0, List.of(TestData.value("t-1"), TestData.value("t-2")));
    data.produce("tasks", 1, List.of(TestData.value("t-3")));
    List<String> lines = run(() -> StaticMemberExample.main(new String[] {broker.address()}));
    assertThat(lines).containsExactly("run 1: [tasks-0, tasks-1], generation 1, 3 records",
        "run 2: [tasks-0, tasks-1], generation 1, 0 records");
  }
}
