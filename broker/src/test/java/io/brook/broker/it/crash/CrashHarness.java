package io.brook.broker.it.crash;

import io.brook.broker.it.BrokerProcess;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.CreateGroupRequest;
import io.brook.protocol.v1.CreateTopicRequest;
import io.brook.protocol.v1.DescribeGroupRequest;
import io.brook.protocol.v1.GroupDescription;
import io.brook.protocol.v1.GroupMode;
import io.brook.protocol.v1.GroupPartition;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.grpc.ManagedChannel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The crash run: a real broker process under idempotent producers (unary and streaming, WRITTEN and
 * SYNCED), an offset-mode member and an ack-mode member, killed with SIGKILL at random moments. After
 * each kill, while the broker is down: {@code brook dump} over every partition and group journal.
 * Then a restart (now and then killed again during its start, before a clean restart) and the checks
 * of {@link Verifier} while every worker is parked. At the end: the producers finish what is
 * unanswered, the members catch up, a last check, a graceful stop and a last dump.
 */
final class CrashHarness implements AutoCloseable {
  static final String TOPIC = "crash";
  static final int PARTITIONS = 3;
  static final String OFFSET_GROUP = "crash-offsets";
  static final String ACK_GROUP = "crash-acks";
  static final String[] BROKER_SETTINGS = {
      "--set", "producer.maintenance.interval.ms=100", // snapshots often, so kills land during them too
      "--set", "group.journal.compact.events=100"}; // journal compactions often, likewise

  private final CrashConfig config;
  private final Path work;
  private final SplittableRandom random;
  private final Violations violations = new Violations();
  private final CrashStats stats = new CrashStats();
  private final BrokerLink link = new BrokerLink();
  private final Ledger ledger = new Ledger(PARTITIONS, violations);
  private final Verifier verifier;
  private final List<IdempotentProducer> producers = new ArrayList<>();
  private OffsetConsumer offsetConsumer;
  private AckConsumer ackConsumer;
  private final List<Worker> workers = new ArrayList<>();
  private BrokerProcess broker;
  private int startupKills;
  private long maxRestartMs;
  static final long RESTART_LIMIT_MS = 20_000;

  CrashHarness(CrashConfig config, Path work) {
    this.config = config;
    this.work = work;
    this.random = new SplittableRandom(config.seed());
    this.verifier = new Verifier(TOPIC, PARTITIONS, config.seed(), ledger, stats, violations);
  }

  Path dataDir() {
    return work.resolve("data");
  }

  CrashReport run() throws Exception {
    long started = System.nanoTime();
    broker = BrokerProcess.start(dataDir(), BROKER_SETTINGS);
    setUp(broker.channel());
    link.up(broker.channel());
    for (int i = 0; i < 3; i++) {
      producers.add(new IdempotentProducer(i, i == 1, TOPIC, PARTITIONS, config.seed(), ledger, stats, link,
          violations));
    }
    offsetConsumer = new OffsetConsumer(OFFSET_GROUP, TOPIC, PARTITIONS, ledger, stats, link, violations);
    ackConsumer = new AckConsumer(ACK_GROUP, TOPIC, PARTITIONS, config.seed(), ledger, stats, link, violations);
    workers.addAll(producers);
    workers.add(offsetConsumer);
    workers.add(ackConsumer);
    workers.forEach(Worker::start);

    for (int cycle = 1; cycle <= config.cycles(); cycle++) {
      violations.cycle(cycle);
      long cycleStart = System.nanoTime();
      // A quarter of the kills come within 100 ms of the restart, when every partition's first append
      // creates a new segment (1 s roll): the moments that left unfinished segment files.
      long delay = random.nextInt(4) == 0 ? random.nextInt(100) : config.cycleMs() / 10
          + random.nextLong(config.cycleMs() - config.cycleMs() / 10 + 1);
      Thread.sleep(delay);
      kill();
      DumpRun.Result dump = dump();
      if (random.nextInt(6) == 0) {
        killDuringStart(random.nextInt(2500));
      }
      long restartStart = System.nanoTime();
      try {
        broker.restart();
      } catch (IllegalStateException e) { // the broker did not come back: nothing more to run against
        violations.add("the broker did not start after the kill: " + e.getMessage());
        return report(System.nanoTime() - started);
      }
      long restartMs = (System.nanoTime() - restartStart) / 1_000_000;
      maxRestartMs = Math.max(maxRestartMs, restartMs);
      if (restartMs > RESTART_LIMIT_MS) { // recovery is O(segments): seconds at most (the bug it caught took 45 s)
        violations.add("the restart took " + restartMs + " ms:\n" + broker.currentStartLog());
      }
      ManagedChannel ch = broker.channel();
      long[] ends = verifier.log(ch, dump, dataDir().resolve("topics").resolve(TOPIC));
      verifier.journals(dump);
      verifier.offsetGroup(ch, OFFSET_GROUP, offsetConsumer);
      verifier.ackGroup(ch, ACK_GROUP, ackConsumer);
      link.up(ch);
      Progress.line(String.format("CrashIT: cycle %d/%d: killed after %d ms; log ends %s; %d records answered, "
              + "%d in flight; torn tails so far %d (+%d leftover); restart %d ms; %d violations; %.1f s", cycle,
          config.cycles(), delay, java.util.Arrays.toString(ends), ledger.answeredRecords(), ledger.inFlightCount(),
          stats.tornTails.get(), stats.leftoverTails.get(), restartMs, violations.count(),
          (System.nanoTime() - cycleStart) / 1e9));
    }
    violations.cycle(config.cycles() + 1);
    finish();
    return report(System.nanoTime() - started);
  }

  private void setUp(ManagedChannel ch) {
    AdminServiceGrpc.newBlockingStub(ch).createTopic(CreateTopicRequest.newBuilder().setName(TOPIC)
        .setPartitions(PARTITIONS).putConfig("segment.roll", "1s").build()); // many segments, rolled under load
    GroupServiceGrpc.newBlockingStub(ch).createGroup(CreateGroupRequest.newBuilder().setGroup(ACK_GROUP)
        .setMode(GroupMode.GROUP_MODE_ACK).putConfig("auto.offset.reset", "earliest")
        .putConfig("max.delivery.attempts", "1000000").build()); // no dead letters: every record stays checkable
  }

  /** SIGKILL first (no answer in flight gets out), then the client side lets go, then the workers park. */
  private void kill() throws InterruptedException {
    link.down();
    ProcessHandle.of(broker.pid()).ifPresent(ProcessHandle::destroyForcibly);
    broker.kill9();
    if (!link.awaitParked(workers.size(), 60_000)) {
      violations.add("workers did not park within 60 s of the kill");
    }
  }

  /** Starts the broker and kills it again after {@code afterMs}: recovery itself is interrupted. */
  private void killDuringStart(long afterMs) throws IOException, InterruptedException {
    startupKills++;
    List<String> command = BrokerProcess.command(dataDir(), List.of(BROKER_SETTINGS));
    Process p = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(work.resolve("startup-kills.log").toFile())).start();
    Thread.sleep(afterMs);
    p.destroyForcibly();
    p.waitFor(30, TimeUnit.SECONDS);
  }

  private DumpRun.Result dump() throws IOException, InterruptedException {
    List<Path> dirs = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      dirs.add(dataDir().resolve("topics").resolve(TOPIC).resolve(Integer.toString(p)));
    }
    Path groups = dataDir().resolve("groups");
    if (Files.isDirectory(groups)) {
      try (Stream<Path> journals = Files.walk(groups, 2)) {
        // A kill just after a compaction created journal-(N+1) can leave it without any queue file yet:
        // not a partition directory (the broker drops it as an interrupted compaction).
        journals.filter(d -> d.getFileName().toString().startsWith("journal-"))
            .filter(d -> Files.exists(d.resolve("metadata.cq4t"))).sorted().forEach(dirs::add);
      }
    }
    DumpRun.Result r = DumpRun.run(dirs, work.resolve("dump"));
    if (r.exitCode() != 0) {
      violations.add("brook dump exited " + r.exitCode() + ": " + r.stderr().strip());
    } else if (!r.stderr().isBlank()) {
      violations.add("brook dump of a stopped broker's files printed on stderr: " + r.stderr().strip());
    }
    return r;
  }

  /** Everything unanswered gets answered, the members catch up; then the last checks and a clean stop. */
  private void finish() throws Exception {
    producers.forEach(Worker::drain);
    for (IdempotentProducer p : producers) {
      if (!p.awaitEnd(60_000)) {
        violations.add(p.name + " did not get its last batches answered within 60 s");
      }
    }
    offsetConsumer.drain();
    if (!offsetConsumer.awaitEnd(60_000)) {
      violations.add("the offset-mode member did not catch up within 60 s");
    }
    long[] ends = verifier.log(broker.channel(), null, null);
    awaitAckGroupSettled(ends);
    link.stop();
    ackConsumer.interrupt();
    ackConsumer.awaitEnd(10_000);

    ManagedChannel ch = broker.channel();
    if (ledger.inFlightCount() != 0) {
      violations.add(ledger.inFlightCount() + " records were never answered");
    }
    verifier.offsetGroup(ch, OFFSET_GROUP, offsetConsumer);
    long[] acked = verifier.ackGroup(ch, ACK_GROUP, ackConsumer);
    for (int p = 0; p < PARTITIONS; p++) {
      if (offsetConsumer.lastAnswered(p) != ends[p]) {
        violations.add("the offset-mode member's last answered commit of " + p + " is "
            + offsetConsumer.lastAnswered(p) + ", not the end " + ends[p]);
      }
      if (acked[p] != ends[p]) {
        violations.add("the ack group's lowest unsettled offset of " + p + " is " + acked[p] + ", not the end "
            + ends[p]);
      }
      if (ackConsumer.neverReceived(p, ends[p]) != 0) {
        violations.add(ackConsumer.neverReceived(p, ends[p]) + " records of partition " + p
            + " were never delivered to the ack-mode member");
      }
    }
    int exit = broker.stop();
    if (exit != 0 || !broker.currentStartLog().contains("Brook stopped")) {
      violations.add("graceful stop exited " + exit + " without logging 'Brook stopped'");
    }
    DumpRun.Result last = dump();
    for (DumpRun.PartitionDump d : last.partitions().values()) {
      if ("torn".equals(d.tail())) { // leftovers of earlier kills may stay; a lock held may not
        violations.add("after a graceful stop the tail of " + d.dir() + " is torn (a Chronicle lock is held)");
      }
    }
    broker.restart(); // the last dump must agree with the log as served
    verifier.log(broker.channel(), last, dataDir().resolve("topics").resolve(TOPIC));
    verifier.journals(last);
    broker.stop();
  }

  private void awaitAckGroupSettled(long[] ends) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 60_000;
    while (System.currentTimeMillis() < deadline) {
      GroupDescription g = GroupServiceGrpc.newBlockingStub(broker.channel()).withDeadlineAfter(10, TimeUnit.SECONDS)
          .describeGroup(DescribeGroupRequest.newBuilder().setGroup(ACK_GROUP).build()).getGroup();
      boolean settled = g.getPartitionsCount() == PARTITIONS;
      for (GroupPartition gp : g.getPartitionsList()) {
        settled &= gp.getCommittedOffset() == ends[gp.getPartition()] && gp.getUnsettledRecords() == 0;
      }
      if (settled) {
        return;
      }
      Thread.sleep(50);
    }
    violations.add("the ack group did not settle every record within 60 s");
  }

  private CrashReport report(long elapsedNanos) {
    return new CrashReport(config, config.cycles(), startupKills, ledger.answeredRecords(), ledger.answeredBatches(),
        ledger.duplicateAnswers(), stats.resentBatches.get(), stats.recordsChecked.get(),
        stats.dumpRecordsCompared.get(), verifier.lost, verifier.duplicated, stats.commitsAnswered.get(),
        stats.commitChecks.get(), stats.acksAnswered.get(), stats.nacksSent.get(), stats.deliveries.get(),
        stats.redeliveries.get(), stats.ackChecks.get(), stats.tornTails.get(), stats.leftoverTails.get(),
        maxRestartMs, elapsedNanos / 1_000_000,
        violations.count(), violations.lines());
  }

  /** Stops everything, whatever state the run is in (a failed or timed-out run leaves no broker behind). */
  @Override
  public void close() {
    link.stop();
    workers.forEach(Worker::interrupt);
    if (broker != null && broker.isAlive()) {
      try {
        broker.kill9();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
