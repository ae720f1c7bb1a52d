package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.protobuf.ByteString;
import com.google.rpc.RetryInfo;
import io.brook.protocol.v1.AckServiceGrpc;
import io.brook.protocol.v1.CommitOffsetsRequest;
import io.brook.protocol.v1.CreateGroupRequest;
import io.brook.protocol.v1.CreateTopicRequest;
import io.brook.protocol.v1.DeleteTopicRequest;
import io.brook.protocol.v1.DescribeGroupRequest;
import io.brook.protocol.v1.FetchCommittedOffsetsRequest;
import io.brook.protocol.v1.GroupDescription;
import io.brook.protocol.v1.GroupMode;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.OffsetCommit;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceResponse;
import io.brook.protocol.v1.ProduceResult;
import io.brook.protocol.v1.Record;
import io.brook.protocol.v1.SettleRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.protobuf.StatusProto;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full disk for real: the broker's data directory is a 64 MiB tmpfs, produce runs it down to the
 * threshold, a filler file then takes the headroom, and space comes back by deleting the filler and
 * a topic. Without the guard the broker dies of SIGBUS here (a mapped write into a full tmpfs).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class DiskFullIT {
  static final long MIB = 1 << 20;
  static final long THRESHOLD = 16 * MIB;
  static final long HEADROOM = 8 * MIB;
  static final int VALUE_BYTES = 32 * 1024;
  static final int RECORDS_PER_BATCH = 8; // 256 KiB per request

  @TempDir Path dir;
  Path fs;
  boolean mounted;
  BrokerProcess broker;
  Wire wire;
  AckStream member;

  @BeforeEach
  void mountSmallFilesystem() throws Exception {
    fs = dir.resolve("fs");
    Files.createDirectories(fs);
    Exec.Result r = Exec.run(List.of("mount", "-t", "tmpfs", "-o", "size=64m,mode=0700", "tmpfs", fs.toString()),
        Map.of(), null, dir.resolve("exec"));
    assumeTrue(r.exitCode() == 0, "skipped: this machine cannot mount a tmpfs (needs root or CAP_SYS_ADMIN): " + r);
    mounted = true;
  }

  @AfterEach
  void unmount() throws Exception {
    try {
      if (member != null) {
        member.close();
      }
      if (broker != null) {
        broker.close();
      }
    } finally {
      if (mounted) {
        Exec.Result r = Exec.run(List.of("umount", fs.toString()), Map.of(), null, dir.resolve("exec"));
        if (r.exitCode() != 0) { // still busy: detach it now, the kernel frees it when the last user goes
          Exec.run(List.of("umount", "-l", fs.toString()), Map.of(), null, dir.resolve("exec"));
        }
      }
    }
  }

  @Test
  void produceStopsAtTheThresholdConsumersDrainInTheHeadroomAndEverythingResumesBySelf() throws Exception {
    // The data directory is the mount point: the broker's log file goes beside it, off the tmpfs.
    // Chronicle's own disk monitor, were it on, would check every second instead of every 10 s, so
    // that its lines (asserted absent at the end) would show up within this short test.
    broker = BrokerProcess.start(fs, Map.of(), List.of("-Dchronicle.disk.monitor.period=1"),
        "--set", "disk.free.min.bytes=" + THRESHOLD, "--set",
        "disk.headroom.bytes=" + HEADROOM, "--set", "disk.free.per.writer.bytes=" + MIB, "--set",
        "disk.check.interval.ms=100");
    wire = new Wire(broker.channel());
    wire.create("tasks", 1);
    wire.create("fill", 1);
    wire.produceValues("tasks", 0, 20, "task-");
    groups().createGroup(CreateGroupRequest.newBuilder().setGroup("workers").setMode(GroupMode.GROUP_MODE_ACK)
        .putConfig("auto.offset.reset", "earliest").build());
    assertThat(commit("billing", 1).getResults(0).getErrorCodeValue()).isZero();
    member = new AckStream(broker.channel(), "workers", "m1", 5, "tasks");
    List<AckStream.Got> leased = member.take(5, 10_000);

    // 1. Two producers fill the filesystem until the broker refuses them.
    Map<Long, String> answered = new ConcurrentHashMap<>();
    ExecutorService producers = Executors.newFixedThreadPool(2);
    List<Future<StatusRuntimeException>> refusals = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      int thread = t;
      refusals.add(producers.submit(() -> fillUntilRefused(thread, answered)));
    }
    producers.shutdown();
    long threshold = THRESHOLD;
    for (Future<StatusRuntimeException> f : refusals) {
      StatusRuntimeException e = f.get(120, TimeUnit.SECONDS);
      threshold = Math.max(threshold, reportedThreshold(e.getStatus().getDescription()));
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(Wire.reason(e)).isEqualTo("NOT_ENOUGH_DISK");
      assertThat(e.getStatus().getDescription()).contains("disk.free.min.bytes")
          .contains("free on the broker's data filesystem");
      assertThat(StatusProto.fromThrowable(e).getDetailsList()).anyMatch(a -> a.is(RetryInfo.class));
    }
    assertThat(answered.size()).as("produce took most of the 64 MiB first").isGreaterThan(30 * 8);
    long free = usable();
    // The threshold is max(disk.free.min.bytes, headroom + active writers x 1 MiB): with many writers
    // (partitions, group journals) it can exceed disk.free.min.bytes; the refusal says what it was. The
    // guard refuses on its estimate (the last reading minus what was appended since), which can run up
    // to a chunk ahead of the filesystem's own count: 1 MiB of slack.
    assertThat(threshold).as("threshold").isLessThanOrEqualTo(THRESHOLD + 8 * MIB);
    assertThat(free).as("refused under the threshold, with the headroom left").isLessThan(threshold + MIB)
        .isGreaterThan(HEADROOM);

    // 2. In the headroom: the broker is up and serving, reads everything it answered, takes commits,
    // acks and dead letters, and refuses produce and new topics.
    assertAliveAndServing();
    assertEverythingAnsweredIsReadable(answered);
    assertRefused(() -> wire.produceValues("tasks", 0, 1, "more-"), "disk.free.min.bytes");
    assertRefused(() -> wire.admin.createTopic(CreateTopicRequest.newBuilder().setName("new").build()),
        "disk.free.min.bytes");
    assertThat(commit("billing", 5).getResults(0).getErrorCodeValue()).isZero();
    assertThat(committed("billing")).isEqualTo(5);
    member.ack(leased);
    List<AckStream.Got> next = member.take(5, 10_000); // delivered: the deliveries were journaled
    member.nack(next.get(0), 0, true); // rejected: dead-lettered into workers.dlq, created in the headroom
    member.ack(next.subList(1, 5));
    awaitTrue(() -> ackCommitted("workers") == 10, "the ack group's committed offset reaching 10");
    List<Record> dlq = wire.readAll("workers.dlq", 0);
    assertThat(dlq).extracting(r -> r.getValue().toStringUtf8()).containsExactly(next.get(0).value());

    List<AckStream.Got> third = member.take(5, 10_000);

    // 3. Under the headroom (a filler file takes it): commits and acks are refused too; reads go on.
    Path filler = fs.resolve("filler");
    fill(filler, usable() - 4 * MIB);
    awaitTrue(() -> refusedCommit("billing", 6), "a commit refused under the headroom");
    String memberId = member.awaitMemberId(5);
    assertRefused(() -> AckServiceGrpc.newBlockingStub(broker.channel()).withDeadlineAfter(30, TimeUnit.SECONDS)
        .settle(SettleRequest.newBuilder().setGroup("workers").setMemberId(memberId)
            .addAcks(AckStream.range("tasks", 0, third.get(0).offset(), third.get(0).offset())).build()),
        "disk.headroom.bytes");
    assertAliveAndServing();
    assertThat(wire.fetchOne("fill", 0, 0, 1, 1 << 20).getRecordsCount()).isEqualTo(1);

    // 4. The filler goes: commits and acks resume by themselves, produce stays refused.
    Files.delete(filler);
    awaitTrue(() -> !refusedCommit("billing", 6), "commits accepted again");
    assertThat(committed("billing")).isEqualTo(6);
    member.ack(third);
    awaitTrue(() -> ackCommitted("workers") == 15, "acks accepted again");
    assertRefused(() -> wire.produceValues("tasks", 0, 1, "more-"), "disk.free.min.bytes");

    // 5. Deleting the big topic frees the space: produce resumes by itself, no restart.
    wire.admin.deleteTopic(DeleteTopicRequest.newBuilder().setName("fill").build());
    awaitTrue(this::produceAccepted, "produce accepted again after the topic was deleted");
    assertThat(wire.readAll("tasks", 0)).hasSizeGreaterThan(20);
    assertAliveAndServing();

    // One log line per change of state, however many requests were refused.
    String log = broker.currentStartLog();
    assertThat(count(log, "Disk space low:")).isEqualTo(1);
    assertThat(count(log, "Disk almost full:")).isEqualTo(1);
    assertThat(count(log, "Disk space back above the headroom:")).isEqualTo(1);
    assertThat(count(log, "Disk space back:")).isEqualTo(1);
    assertThat(log).doesNotContain("Exception");
    // Brook's guard is what keeps the process alive, and its lines say so. Chronicle's own disk
    // monitor would call this volume (any under 200 MB) almost full in an ERROR saying the JVM may
    // crash: it must be off, not contradict them.
    assertThat(log.lines().filter(l -> l.contains("JVM may crash") || l.contains("DiskSpaceMonitor")).toList())
        .as("Chronicle's disk space monitor lines").isEmpty();
    assertThat(log).contains("Disk guard on " + fs);
  }

  /** Produces 256 KiB requests until refused; every answered record's value is noted by offset. */
  /** The produce threshold a refusal names ("threshold of N bytes"), or 0 when it names none. */
  static long reportedThreshold(String description) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("threshold of (\\d+) bytes").matcher(description);
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }

  StatusRuntimeException fillUntilRefused(int thread, Map<Long, String> answered) {
    for (int request = 0; request < 1000; request++) { // 64 MiB holds 256 of them
      List<Record> records = new ArrayList<>();
      for (int i = 0; i < RECORDS_PER_BATCH; i++) {
        records.add(Record.newBuilder().setValue(ByteString.copyFromUtf8(value(thread, request, i))).build());
      }
      ProduceResponse r;
      try {
        r = wire.produce.withDeadlineAfter(30, TimeUnit.SECONDS).produce(ProduceRequest.newBuilder()
            .addBatches(ProduceBatch.newBuilder().setTopic("fill").setPartition(0).addAllRecords(records)).build());
      } catch (StatusRuntimeException e) {
        return e;
      }
      ProduceResult result = r.getResults(0);
      assertThat(result.getErrorCodeValue()).as(result.getErrorMessage()).isZero();
      for (int i = 0; i < RECORDS_PER_BATCH; i++) {
        answered.put(result.getBaseOffset() + i, value(thread, request, i));
      }
    }
    throw new AssertionError("thread " + thread + " was never refused");
  }

  static String value(int thread, int request, int index) {
    char[] fill = new char[VALUE_BYTES];
    Arrays.fill(fill, (char) ('a' + (request + index) % 26));
    return thread + "/" + request + "/" + index + "/" + new String(fill);
  }

  void assertEverythingAnsweredIsReadable(Map<Long, String> answered) {
    List<Record> all = wire.readAll("fill", 0);
    assertThat(all).hasSameSizeAs(answered.keySet());
    for (Record r : all) {
      assertThat(r.getValue().toStringUtf8()).as("offset " + r.getOffset()).isEqualTo(answered.get(r.getOffset()));
    }
  }

  void assertAliveAndServing() throws IOException {
    assertThat(broker.isAlive()).as("the broker process (no SIGBUS)").isTrue();
    try (Stream<Path> crashes = Stream.of(Path.of("hs_err_pid" + broker.pid() + ".log"),
        fs.resolve("hs_err_pid" + broker.pid() + ".log"))) {
      assertThat(crashes.filter(Files::exists)).as("JVM crash reports").isEmpty();
    }
    HealthCheckResponse health = HealthGrpc.newBlockingStub(broker.channel()).withDeadlineAfter(10, TimeUnit.SECONDS)
        .check(HealthCheckRequest.getDefaultInstance());
    assertThat(health.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
  }

  static void assertRefused(Runnable call, String configKey) {
    assertThatThrownBy(call::run).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(Wire.reason(e)).isEqualTo("NOT_ENOUGH_DISK");
      assertThat(e.getStatus().getDescription()).contains(configKey);
    });
  }

  GroupServiceGrpc.GroupServiceBlockingStub groups() {
    return GroupServiceGrpc.newBlockingStub(broker.channel()).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  io.brook.protocol.v1.CommitOffsetsResponse commit(String group, long offset) {
    return groups().commitOffsets(CommitOffsetsRequest.newBuilder().setGroup(group)
        .addOffsets(OffsetCommit.newBuilder().setTopic("tasks").setPartition(0).setOffset(offset)).build());
  }

  /** True when the commit was refused for want of disk; it fails the test on any other outcome. */
  boolean refusedCommit(String group, long offset) {
    try {
      assertThat(commit(group, offset).getResults(0).getErrorCodeValue()).isZero();
      return false;
    } catch (StatusRuntimeException e) {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(e.getStatus().getDescription()).contains("disk.headroom.bytes");
      return true;
    }
  }

  boolean produceAccepted() {
    try {
      return wire.produceValues("tasks", 0, 1, "after-").getResults(0).getErrorCodeValue() == 0;
    } catch (StatusRuntimeException e) {
      assertThat(Wire.reason(e)).isEqualTo("NOT_ENOUGH_DISK");
      return false;
    }
  }

  long committed(String group) {
    return groups().fetchCommittedOffsets(FetchCommittedOffsetsRequest.newBuilder().setGroup(group).build())
        .getOffsets(0).getOffset();
  }

  long ackCommitted(String group) {
    GroupDescription d = groups().describeGroup(DescribeGroupRequest.newBuilder().setGroup(group).build()).getGroup();
    return d.getPartitions(0).getCommittedOffset();
  }

  long usable() throws IOException {
    return Files.getFileStore(fs).getUsableSpace();
  }

  /** Writes a file of about {@code bytes} with plain writes (a full filesystem fails them with an IOException). */
  static void fill(Path file, long bytes) throws IOException {
    byte[] chunk = new byte[1 << 20];
    try (OutputStream out = Files.newOutputStream(file)) {
      for (long written = 0; written < bytes; written += chunk.length) {
        out.write(chunk, 0, (int) Math.min(chunk.length, bytes - written));
      }
    }
  }

  static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (System.nanoTime() < deadline) {
      if (condition.getAsBoolean()) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no " + what + " within 15 s");
  }

  static int count(String text, String needle) {
    int n = 0;
    for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
      n++;
    }
    return n;
  }
}
