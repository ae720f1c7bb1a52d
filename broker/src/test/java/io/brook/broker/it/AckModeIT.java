package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.protocol.v1.AckServiceGrpc;
import io.brook.protocol.v1.CreateGroupRequest;
import io.brook.protocol.v1.DeleteTopicRequest;
import io.brook.protocol.v1.DescribeGroupRequest;
import io.brook.protocol.v1.ErrorCode;
import io.brook.protocol.v1.FetchCommittedOffsetsRequest;
import io.brook.protocol.v1.GroupDescription;
import io.brook.protocol.v1.GroupMode;
import io.brook.protocol.v1.GroupPartition;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.Header;
import io.brook.protocol.v1.JoinGroupRequest;
import io.brook.protocol.v1.ReceiveRequest;
import io.brook.protocol.v1.Record;
import io.brook.protocol.v1.SettleFailure;
import io.brook.protocol.v1.SettleRequest;
import io.brook.protocol.v1.SettleResponse;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Ack mode against the real broker: leases, acks, nacks, expiry, dead letters, restarts. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class AckModeIT {
  @TempDir Path dir;
  BrokerProcess broker;
  Wire wire;
  final List<AckStream> streams = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    // A tiny compaction threshold: the journals are rewritten as snapshots many times in every test.
    broker = BrokerProcess.start(dir.resolve("data"), "--set", "group.journal.compact.events=20");
    wire = new Wire(broker.channel());
  }

  @AfterEach
  void stop() throws Exception {
    streams.forEach(AckStream::close);
    broker.close();
  }

  GroupServiceGrpc.GroupServiceBlockingStub groups() {
    return GroupServiceGrpc.newBlockingStub(broker.channel()).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  void ackGroup(String name, String... config) {
    CreateGroupRequest.Builder b = CreateGroupRequest.newBuilder().setGroup(name).setMode(GroupMode.GROUP_MODE_ACK)
        .putConfig("auto.offset.reset", "earliest");
    for (int i = 0; i < config.length; i += 2) {
      b.putConfig(config[i], config[i + 1]);
    }
    groups().createGroup(b.build());
  }

  AckStream member(String group, String clientId, long maxOutstanding, String... topics) {
    AckStream s = new AckStream(broker.channel(), group, clientId, maxOutstanding, topics);
    streams.add(s);
    return s;
  }

  GroupDescription describe(String group) {
    return groups().describeGroup(DescribeGroupRequest.newBuilder().setGroup(group).build()).getGroup();
  }

  void produceSpread(String topic, int partitions, int perPartition) {
    for (int p = 0; p < partitions; p++) {
      wire.produceValues(topic, p, perPartition, "p" + p + "-");
    }
  }

  @Test
  void twoMembersShareATopicWithNoRecordLostOrSettledTwice() throws Exception {
    wire.create("jobs", 4);
    ackGroup("workers");
    AckStream a = member("workers", "", 50, "jobs");
    AckStream b = member("workers", "", 50, "jobs");
    produceSpread("jobs", 4, 500);
    Map<String, Integer> seen = new HashMap<>();
    int[] perMember = new int[2];
    long deadline = System.currentTimeMillis() + 60_000;
    while (seen.size() < 2000 && System.currentTimeMillis() < deadline) {
      for (int i = 0; i < 2; i++) {
        AckStream s = i == 0 ? a : b;
        List<AckStream.Got> got = new ArrayList<>();
        s.records.drainTo(got);
        for (AckStream.Got g : got) {
          assertThat(g.attempt()).isEqualTo(1);
          seen.merge(g.partition() + "/" + g.offset(), 1, Integer::sum);
        }
        perMember[i] += got.size();
        if (!got.isEmpty()) {
          s.ack(got);
        }
      }
      Thread.sleep(5);
    }
    assertThat(seen).hasSize(2000);
    assertThat(seen.values()).allMatch(n -> n == 1); // no record delivered to both members
    assertThat(perMember[0]).isPositive();
    assertThat(perMember[1]).isPositive(); // both took part
    awaitSettled("workers", 2000);
    assertThat(a.failures).isEmpty();
    assertThat(b.failures).isEmpty();
    GroupDescription d = describe("workers");
    assertThat(d.getPartitionsList()).allSatisfy(p -> {
      assertThat(p.getCommittedOffset()).isEqualTo(500); // the lowest unsettled offset advanced by itself
      assertThat(p.getLag()).isZero();
      assertThat(p.getRedeliveries()).isZero();
    });
    assertThat(d.getMembersList()).hasSize(2).allMatch(m -> m.getConnected());
  }

  void awaitSettled(String group, long total) throws InterruptedException {
    for (int i = 0; i < 400; i++) {
      long committed = describe(group).getPartitionsList().stream().mapToLong(GroupPartition::getCommittedOffset)
          .sum();
      if (committed == total) {
        return;
      }
      Thread.sleep(25);
    }
    throw new AssertionError("not all settled: " + describe(group));
  }

  @Test
  void nackRedeliversAfterTheDelayWithTheNextAttempt() throws Exception {
    wire.create("t", 1);
    ackGroup("g");
    AckStream a = member("g", "", 10, "t");
    wire.produceValues("t", 0, 2, "v");
    List<AckStream.Got> got = a.take(2, 10_000);
    a.nack(got.get(0), 300, false);
    a.ack(got.subList(1, 2));
    AckStream.Got again = a.next(10_000);
    assertThat(again.offset()).isZero();
    assertThat(again.attempt()).isEqualTo(2);
    a.ack(List.of(again));
    awaitSettled("g", 2);
    assertThat(describe("g").getPartitions(0).getRedeliveries()).isEqualTo(1);
  }

  @Test
  void anExpiredLeaseIsRedeliveredAndALateAckIsRefused() throws Exception {
    wire.create("t", 1);
    ackGroup("g", "ack.timeout.ms", "500");
    AckStream a = member("g", "worker-a", 10, "t");
    wire.produceValues("t", 0, 1, "v");
    AckStream.Got first = a.next(10_000);
    assertThat(first.attempt()).isEqualTo(1);
    a.close(); // a member with a client id keeps its leases after its stream ends, until they expire
    awaitEnded(a);
    Thread.sleep(700); // past the lease: the record is available again (nobody is connected to take it)
    SettleResponse late = AckServiceGrpc.newBlockingStub(broker.channel()).settle(SettleRequest.newBuilder()
        .setGroup("g").setMemberId("worker-a").addAcks(AckStream.range("t", 0, 0, 0)).build());
    assertThat(late.getFailuresList()).extracting(SettleFailure::getErrorCode)
        .containsExactly(ErrorCode.ERROR_CODE_LEASE_EXPIRED);
    AckStream b = member("g", "", 10, "t");
    AckStream.Got again = b.next(10_000);
    assertThat(again.offset()).isZero();
    assertThat(again.attempt()).isEqualTo(2);
    // A's id is still known while it is remembered; the record is now B's.
    SettleResponse stolen = AckServiceGrpc.newBlockingStub(broker.channel()).settle(SettleRequest.newBuilder()
        .setGroup("g").setMemberId("worker-a").addAcks(AckStream.range("t", 0, 0, 0)).build());
    assertThat(stolen.getFailures(0).getErrorCode()).isEqualTo(ErrorCode.ERROR_CODE_NOT_LEASED);
    b.ack(List.of(again));
    awaitSettled("g", 1);
  }

  @Test
  void aNewStreamOfAMemberEndsItsOlderStreamAbortedWithReasonMemberReplaced() throws Exception {
    wire.create("t", 1);
    ackGroup("g");
    AckStream older = member("g", "worker", 10, "t");
    assertThat(older.awaitMemberId(10)).isEqualTo("worker");
    AckStream newer = member("g", "worker", 10, "t");
    assertThat(newer.awaitMemberId(10)).isEqualTo("worker");
    // Like every error the broker raises, the takeover names its reason in an ErrorInfo.
    assertThat(older.awaitEnd(10)).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.ABORTED);
      assertThat(Wire.reason(e)).isEqualTo("MEMBER_REPLACED");
      assertThat(e.getStatus().getDescription()).contains("'worker'");
    });
    wire.produceValues("t", 0, 1, "v");
    assertThat(newer.next(10_000).offset()).isZero(); // the member goes on in its newer stream
  }

  @Test
  void acksInTheFirstMessageOfAStreamSettleTheLeasesItTakesOver() throws Exception {
    wire.create("t", 1);
    ackGroup("g", "ack.timeout.ms", "600000"); // no expiry during the test: only the ack can settle it
    AckStream a = member("g", "worker", 10, "t");
    wire.produceValues("t", 0, 1, "v");
    assertThat(a.next(10_000).offset()).isZero();
    a.close(); // the member keeps its lease between streams
    awaitEnded(a);
    AckStream again = new AckStream(broker.channel(), ReceiveRequest.newBuilder().setGroup("g").addTopics("t")
        .setClientId("worker").addAcks(AckStream.range("t", 0, 0, 0)).build());
    streams.add(again);
    assertThat(again.awaitMemberId(10)).isEqualTo("worker");
    awaitSettled("g", 1);
    assertThat(again.failures).isEmpty();
  }

  void awaitEnded(AckStream s) throws InterruptedException {
    assertThat(s.awaitEnd(10)).isNotNull();
  }

  @Test
  void afterMaxDeliveryAttemptsARecordGoesToTheDeadLetterTopicWithItsOrigin() throws Exception {
    wire.create("t", 1);
    ackGroup("g", "max.delivery.attempts", "3");
    AckStream a = member("g", "", 10, "t");
    wire.produce("t", 0, List.of(Record.newBuilder().setKey(com.google.protobuf.ByteString.copyFromUtf8("k"))
        .setValue(com.google.protobuf.ByteString.copyFromUtf8("poison"))
        .addHeaders(Header.newBuilder().setKey("h").setValue(com.google.protobuf.ByteString.copyFromUtf8("x")))
        .build(), Wire.value("reject-me")));
    List<Integer> attempts = new ArrayList<>();
    AckStream.Got rejected = null;
    for (int i = 0; i < 4; i++) {
      AckStream.Got g = a.next(10_000);
      if (g.offset() == 1) {
        rejected = g;
        continue;
      }
      attempts.add(g.attempt());
      a.nack(g, 0, false);
    }
    a.nack(rejected, 0, true); // reject: dead-letter at once
    assertThat(attempts).containsExactly(1, 2, 3);
    awaitSettled("g", 2);
    assertThat(a.records.poll(300, TimeUnit.MILLISECONDS)).isNull(); // not delivered a fourth time
    List<Record> dead = wire.readAll("g.dlq", 0);
    assertThat(dead).hasSize(2);
    Map<String, String> h0 = headers(dead.stream().filter(r -> r.getValue().toStringUtf8().equals("poison"))
        .findFirst().orElseThrow());
    assertThat(h0).containsEntry("h", "x").containsEntry("brook.dlq.topic", "t")
        .containsEntry("brook.dlq.partition", "0").containsEntry("brook.dlq.offset", "0")
        .containsEntry("brook.dlq.attempts", "3").containsEntry("brook.dlq.reason", "max_delivery_attempts");
    Map<String, String> h1 = headers(dead.stream().filter(r -> r.getValue().toStringUtf8().equals("reject-me"))
        .findFirst().orElseThrow());
    assertThat(h1).containsEntry("brook.dlq.reason", "rejected").containsEntry("brook.dlq.attempts", "1");
    assertThat(describe("g").getPartitions(0).getDeadLetteredRecords()).isEqualTo(2);
  }

  static Map<String, String> headers(Record r) {
    return r.getHeadersList().stream().collect(Collectors.toMap(Header::getKey, h -> h.getValue().toStringUtf8()));
  }

  @Test
  void afterKill9AckedRecordsStayAckedAndUnackedOnesComeAgain() throws Exception {
    wire.create("t", 2);
    ackGroup("g");
    AckStream a = member("g", "", 1000, "t");
    produceSpread("t", 2, 50);
    List<AckStream.Got> got = a.take(100, 20_000);
    List<AckStream.Got> acked = got.stream().filter(g -> g.offset() % 2 == 0).toList();
    acked.forEach(g -> a.ack(List.of(g))); // one settle call (one journal append) each
    awaitSettledCount("g", 50);
    broker.kill9();
    broker.restart();
    wire = new Wire(broker.channel());
    AckStream b = member("g", "", 1000, "t");
    List<AckStream.Got> again = b.take(50, 20_000);
    assertThat(again).allSatisfy(g -> {
      assertThat(g.offset() % 2).isEqualTo(1);
      assertThat(g.attempt()).isEqualTo(2); // the first delivery was counted on disk
    });
    assertThat(again.stream().map(g -> g.partition() + "/" + g.offset()).collect(Collectors.toSet())).hasSize(50);
    assertThat(b.records.poll(300, TimeUnit.MILLISECONDS)).isNull();
    // The state came back through compacted journals (a snapshot every 20 events here), not one long log.
    try (var files = java.nio.file.Files.list(dir.resolve("data/groups/g"))) {
      assertThat(files.map(f -> f.getFileName().toString()).toList()).singleElement()
          .satisfies(n -> assertThat(Integer.parseInt(n.substring("journal-".length()))).isGreaterThan(1));
    }
  }

  /** Waits until the group reports this many fewer unsettled records than delivered ones. */
  void awaitSettledCount(String group, int settled) throws InterruptedException {
    for (int i = 0; i < 400; i++) {
      GroupDescription d = describe(group);
      long unsettled = d.getPartitionsList().stream().mapToLong(GroupPartition::getUnsettledRecords).sum();
      if (d.getPartitionsList().stream().mapToLong(GroupPartition::getEndOffset).sum() - unsettled == settled) {
        return;
      }
      Thread.sleep(25);
    }
    throw new AssertionError("settled count never reached " + settled + ": " + describe(group));
  }

  @Test
  void deliveryAttemptsSurviveRestartsSoACrashingRecordIsDeadLettered() throws Exception {
    wire.create("t", 1);
    ackGroup("g", "max.delivery.attempts", "2");
    wire.produceValues("t", 0, 1, "crash");
    AckStream a = member("g", "", 10, "t");
    assertThat(a.next(10_000).attempt()).isEqualTo(1);
    broker.kill9(); // the record "crashed" the system before it was acked
    broker.restart();
    wire = new Wire(broker.channel());
    AckStream b = member("g", "", 10, "t");
    assertThat(b.next(10_000).attempt()).isEqualTo(2);
    broker.kill9();
    broker.restart();
    wire = new Wire(broker.channel());
    AckStream c = member("g", "", 10, "t");
    awaitSettled("g", 1);
    assertThat(c.records.poll(300, TimeUnit.MILLISECONDS)).isNull();
    assertThat(wire.readAll("g.dlq", 0)).hasSize(1);
  }

  @Test
  void strictOrderWithOneUnsettledRecordPerPartition() throws Exception {
    wire.create("t", 1);
    ackGroup("g", "max.unsettled.per.partition", "1");
    AckStream a = member("g", "", 100, "t");
    AckStream b = member("g", "", 100, "t");
    wire.produceValues("t", 0, 5, "v");
    List<Long> order = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      Taken t = pollEither(a, b);
      // Nothing else is out while one record is unsettled.
      assertThat(a.records.poll(100, TimeUnit.MILLISECONDS)).isNull();
      assertThat(b.records.poll(0, TimeUnit.MILLISECONDS)).isNull();
      order.add(t.got().offset());
      t.from().ack(List.of(t.got()));
    }
    assertThat(order).containsExactly(0L, 1L, 2L, 3L, 4L);
  }

  record Taken(AckStream from, AckStream.Got got) {}

  static Taken pollEither(AckStream a, AckStream b) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 10_000;
    while (System.currentTimeMillis() < deadline) {
      for (AckStream s : List.of(a, b)) {
        AckStream.Got g = s.records.poll(10, TimeUnit.MILLISECONDS);
        if (g != null) {
          return new Taken(s, g);
        }
      }
    }
    throw new AssertionError("no record within 10 s");
  }

  @Test
  void flowControlBoundsWhatAMemberHoldsAndASlowMemberDoesNotStarveOthers() throws Exception {
    wire.create("t", 2);
    ackGroup("g");
    AckStream slow = member("g", "", 5, "t");
    produceSpread("t", 2, 20);
    List<AckStream.Got> held = slow.take(5, 10_000);
    assertThat(slow.records.poll(300, TimeUnit.MILLISECONDS)).isNull(); // full: no sixth record
    AckStream fast = member("g", "", 100, "t");
    List<AckStream.Got> rest = fast.take(35, 10_000); // everything the slow one does not hold
    Set<String> all = new HashSet<>();
    held.forEach(g -> all.add(g.partition() + "/" + g.offset()));
    rest.forEach(g -> all.add(g.partition() + "/" + g.offset()));
    assertThat(all).hasSize(40);
    slow.flowControl(6);
    assertThat(fast.records.poll(200, TimeUnit.MILLISECONDS)).isNull();
    fast.ack(rest);
    slow.ack(held);
    awaitSettled("g", 40);
  }

  @Test
  void anExtendedLeaseOutlivesTheAckTimeout() throws Exception {
    wire.create("t", 1);
    ackGroup("g", "ack.timeout.ms", "400");
    AckStream a = member("g", "", 10, "t");
    AckStream b = member("g", "", 10, "t");
    wire.produceValues("t", 0, 1, "slow-job");
    Taken t = pollEither(a, b);
    t.from().extend(t.got(), 60_000);
    // Well past the ack timeout: without the extension the record would have come again.
    assertThat(a.records.poll(1200, TimeUnit.MILLISECONDS)).isNull();
    assertThat(b.records.poll(0, TimeUnit.MILLISECONDS)).isNull();
    t.from().ack(List.of(t.got()));
    awaitSettled("g", 1);
    assertThat(t.from().failures).isEmpty();
  }

  @Test
  void aNewAckGroupStartsAtTheEndByDefaultLikeKafka() throws Exception {
    wire.create("t", 1);
    wire.produceValues("t", 0, 3, "old");
    AckStream a = member("fresh", "", 10, "t"); // created on demand: auto.offset.reset=latest
    assertThat(a.awaitMemberId(10)).startsWith("member-");
    wire.produceValues("t", 0, 1, "new");
    AckStream.Got g = a.next(10_000);
    assertThat(g.value()).isEqualTo("new0");
    assertThat(g.offset()).isEqualTo(3);
    assertThat(describe("fresh").getMode()).isEqualTo(GroupMode.GROUP_MODE_ACK);
  }

  @Test
  void badAcksGetPerRangeFailures() throws Exception {
    wire.create("t", 1);
    ackGroup("g");
    AckStream a = member("g", "", 10, "t");
    wire.produceValues("t", 0, 3, "v");
    List<AckStream.Got> got = a.take(3, 10_000);
    a.ack(AckStream.range("t", 0, 0, 0));
    a.ack(AckStream.range("t", 0, 0, 1)); // 0 settled already, 1 fine
    assertThat(a.nextFailure(10_000)).satisfies(f -> {
      assertThat(f.getErrorCode()).isEqualTo(ErrorCode.ERROR_CODE_ALREADY_SETTLED);
      assertThat(f.getRange().getFirstOffset()).isZero();
      assertThat(f.getRange().hasLastOffset()).isFalse();
    });
    a.ack(AckStream.range("t", 0, 2, 9)); // 2 fine, 3..9 never delivered
    assertThat(a.nextFailure(10_000)).satisfies(f -> {
      assertThat(f.getErrorCode()).isEqualTo(ErrorCode.ERROR_CODE_NOT_LEASED);
      assertThat(f.getRange().getFirstOffset()).isEqualTo(3);
      assertThat(f.getRange().getLastOffset()).isEqualTo(9);
      assertThat(f.getErrorMessage()).contains("not delivered yet");
    });
    a.ack(AckStream.range("t", 0, 5, 2));
    assertThat(a.nextFailure(10_000).getErrorCode()).isEqualTo(ErrorCode.ERROR_CODE_INVALID_REQUEST);
    a.ack(AckStream.range("nope", 0, 0, 0));
    assertThat(a.nextFailure(10_000).getErrorCode()).isEqualTo(ErrorCode.ERROR_CODE_UNKNOWN_TOPIC);
    awaitSettled("g", 3);
    assertThat(got).hasSize(3);

    AckStream unknownTopic = member("g2", "", 10, "missing");
    assertThat(unknownTopic.awaitEnd(10)).isInstanceOfSatisfying(StatusRuntimeException.class, e ->
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
    groups().joinGroup(JoinGroupRequest.newBuilder().setGroup("offsets").addTopics("t").build());
    AckStream wrongMode = member("offsets", "", 10, "t");
    assertThat(wrongMode.awaitEnd(10)).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
      assertThat(Wire.reason(e)).isEqualTo("INCONSISTENT_GROUP_MODE");
    });
    assertThatThrownBy(() -> AckServiceGrpc.newBlockingStub(broker.channel()).settle(SettleRequest.newBuilder()
        .setGroup("g").setMemberId("ghost").addAcks(AckStream.range("t", 0, 0, 0)).build()))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e ->
            assertThat(Wire.reason(e)).isEqualTo("UNKNOWN_MEMBER_ID"));
  }

  @Test
  void aDeletedTopicIsDroppedFromTheGroup() throws Exception {
    wire.create("t", 1);
    ackGroup("g");
    AckStream a = member("g", "", 10, "t");
    wire.produceValues("t", 0, 3, "v");
    a.take(3, 10_000);
    wire.admin.deleteTopic(DeleteTopicRequest.newBuilder().setName("t").build());
    for (int i = 0; i < 200 && !describe("g").getPartitionsList().isEmpty(); i++) {
      Thread.sleep(25);
    }
    assertThat(describe("g").getPartitionsList()).isEmpty();
    assertThat(describe("g").getMembers(0).getLeasedRecords()).isZero();
    assertThat(groups().fetchCommittedOffsets(FetchCommittedOffsetsRequest.newBuilder().setGroup("g").build())
        .getOffsetsList()).isEmpty();
  }
}
