package io.brook.client.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.it.BrokerProcess;
import io.brook.client.ack.AckConsumer;
import io.brook.client.ack.AckConsumerConfig;
import io.brook.client.ack.AckRecord;
import io.brook.client.ack.SettleFailure;
import io.brook.client.admin.BrookAdmin;
import io.brook.client.admin.GroupInfo;
import io.brook.client.admin.GroupPartitionInfo;
import io.brook.client.admin.NewGroup;
import io.brook.client.errors.AlreadySettledException;
import io.brook.client.errors.InconsistentGroupModeException;
import io.brook.client.errors.LeaseExpiredException;
import io.brook.client.errors.MemberReplacedException;
import io.brook.client.errors.UnknownTopicException;
import io.brook.protocol.v1.AckServiceGrpc;
import io.brook.protocol.v1.DescribeGroupRequest;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.JoinGroupRequest;
import io.brook.protocol.v1.Record;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The ack consumer against the real broker process. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class AckConsumerIT {
  @TempDir Path dir;
  BrokerProcess broker;
  TestData data;
  BrookAdmin admin;
  final List<AutoCloseable> closeLater = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
    data = new TestData(broker.channel());
    admin = BrookAdmin.create(broker.address()); // its own channel: it reconnects after a restart
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : closeLater) {
      c.close();
    }
    admin.close();
    broker.close();
  }

  AckConsumerConfig.Builder config(String group, String... topics) {
    return AckConsumerConfig.builder().broker(broker.address()).group(group).topics(topics);
  }

  AckConsumer<String, String> consumer(AckConsumerConfig config) {
    AckConsumer<String, String> c = AckConsumer.ofStrings(config);
    closeLater.add(c);
    return c;
  }

  void ackGroup(String group, String... config) {
    NewGroup g = NewGroup.ackMode(group).withConfig("auto.offset.reset", "earliest");
    for (int i = 0; i < config.length; i += 2) {
      g = g.withConfig(config[i], config[i + 1]);
    }
    admin.createGroup(g);
  }

  /** Polls until {@code count} records came (or fails after 200 polls of 100 ms). */
  static List<AckRecord<String, String>> take(AckConsumer<String, String> c, int count) {
    List<AckRecord<String, String>> got = new ArrayList<>();
    for (int i = 0; i < 200 && got.size() < count; i++) {
      got.addAll(c.poll(Duration.ofMillis(100)));
    }
    assertThat(got).as("records received").hasSizeGreaterThanOrEqualTo(count);
    return got;
  }

  /** Waits (bounded) until every partition of the group has nothing unsettled up to its end. */
  GroupInfo awaitAllSettled(String group) throws InterruptedException {
    GroupInfo g = null;
    for (int i = 0; i < 400; i++) {
      g = admin.describeGroup(group);
      if (!g.partitions().isEmpty() && g.partitions().stream().allMatch(p -> p.committedOffset() != null
          && p.committedOffset() == p.endOffset() && p.unsettledRecords() == 0)) {
        return g;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("not everything settled: " + g);
  }

  @Test
  void recordsArriveWithTheirDataAndAttemptAndAcksFromWorkerThreadsSettleThem() throws Exception {
    data.createTopic("jobs", 2);
    ackGroup("workers");
    data.produce("jobs", 0, List.of(TestData.keyed("k", "first", "h", "x")));
    data.produceValues("jobs", 0, 49, "a");
    data.produceValues("jobs", 1, 50, "b");
    AckConsumer<String, String> c = consumer(config("workers", "jobs").build());

    List<AckRecord<String, String>> got = take(c, 100);
    assertThat(got).hasSize(100).allSatisfy(r -> {
      assertThat(r.deliveryAttempt()).isEqualTo(1);
      assertThat(r.leaseDeadlineMs()).isPositive();
    });
    AckRecord<String, String> first = got.stream().filter(r -> r.partition() == 0 && r.offset() == 0).findFirst()
        .orElseThrow();
    assertThat(first.key()).isEqualTo("k");
    assertThat(first.value()).isEqualTo("first");
    assertThat(first.record().lastHeader("h").valueAsString()).isEqualTo("x");
    assertThat(first.topic()).isEqualTo("jobs");
    ExecutorService workers = Executors.newFixedThreadPool(4); // acks from worker threads, as queue clients do
    try {
      List<Future<?>> done = new ArrayList<>();
      got.forEach(r -> done.add(workers.submit(() -> c.ack(r))));
      for (Future<?> f : done) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      workers.shutdownNow();
    }
    assertThat(c.flush()).as("failures of the acks").isEmpty();

    GroupInfo g = awaitAllSettled("workers");
    assertThat(g.partitions()).extracting(GroupPartitionInfo::committedOffset).containsOnly(50L);
    assertThat(g.members()).singleElement().satisfies(m -> {
      assertThat(m.connected()).isTrue();
      assertThat(m.memberId()).isEqualTo(c.memberId());
    });
    assertThat(c.poll(Duration.ofMillis(300))).as("nothing delivered twice").isEmpty();
    assertThat(c.stats().receivedRecords()).isEqualTo(100);
    assertThat(c.stats().redeliveredRecords()).isZero();
  }

  @Test
  void aNackWithADelayIsDeliveredAgainWithAttemptTwo() throws Exception {
    data.createTopic("t", 1);
    ackGroup("g");
    data.produceValues("t", 0, 2, "v");
    AckConsumer<String, String> c = consumer(config("g", "t").build());
    List<AckRecord<String, String>> got = take(c, 2);
    c.nack(got.get(0), Duration.ofMillis(300));
    c.ack(got.get(1));
    List<AckRecord<String, String>> again = take(c, 1);
    assertThat(again).singleElement().satisfies(r -> {
      assertThat(r.offset()).isEqualTo(got.get(0).offset());
      assertThat(r.value()).isEqualTo(got.get(0).value());
      assertThat(r.deliveryAttempt()).isEqualTo(2);
    });
    c.ack(again.get(0));
    assertThat(c.flush()).isEmpty();
    assertThat(awaitAllSettled("g").partitions().get(0).redeliveries()).isEqualTo(1);
    assertThat(c.stats().redeliveredRecords()).isEqualTo(1);
  }

  @Test
  void rejectedRecordsAndRecordsPastMaxDeliveryAttemptsLandInTheDeadLetterTopic() throws Exception {
    data.createTopic("t", 1);
    ackGroup("g", "max.delivery.attempts", "2");
    data.produce("t", 0, List.of(TestData.keyed("k", "poison", "h", "x"), TestData.value("reject-me")));
    AckConsumer<String, String> c = consumer(config("g", "t").build());
    List<Integer> poisonAttempts = new ArrayList<>();
    for (int i = 0; i < 200 && poisonAttempts.size() < 2; i++) {
      for (AckRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
        if (r.value().equals("reject-me")) {
          c.reject(r);
        } else {
          poisonAttempts.add(r.deliveryAttempt());
          c.nack(r);
        }
      }
    }
    assertThat(poisonAttempts).containsExactly(1, 2);
    GroupInfo g = awaitAllSettled("g");
    assertThat(g.partitions().get(0).deadLetteredRecords()).isEqualTo(2);
    assertThat(c.poll(Duration.ofMillis(300))).as("no third delivery").isEmpty();

    List<Record> dead = data.readAll("g.dlq", 0);
    assertThat(dead).hasSize(2);
    Map<String, Map<String, String>> byValue = new HashMap<>();
    dead.forEach(r -> byValue.put(r.getValue().toStringUtf8(), TestData.headers(r)));
    assertThat(byValue.get("poison")).containsEntry("h", "x").containsEntry("brook.dlq.topic", "t")
        .containsEntry("brook.dlq.offset", "0").containsEntry("brook.dlq.attempts", "2")
        .containsEntry("brook.dlq.reason", "max_delivery_attempts");
    assertThat(byValue.get("reject-me")).containsEntry("brook.dlq.offset", "1").containsEntry("brook.dlq.reason",
        "rejected");
  }

  @Test
  void anExpiredLeaseIsDeliveredAgainAndSettlingTwiceIsATypedFailure() throws Exception {
    data.createTopic("t", 1);
    ackGroup("g", "ack.timeout.ms", "500");
    data.produceValues("t", 0, 1, "slow");
    AckConsumer<String, String> c = consumer(config("g", "t").build());
    AckRecord<String, String> first = take(c, 1).get(0);
    assertThat(first.deliveryAttempt()).isEqualTo(1);
    // Not settled: when the lease runs out the record comes again (here to the same, only, member).
    AckRecord<String, String> again = take(c, 1).get(0);
    assertThat(again.offset()).isEqualTo(first.offset());
    assertThat(again.deliveryAttempt()).isEqualTo(2);
    assertThat(again.leaseDeadlineMs()).isGreaterThan(first.leaseDeadlineMs());
    c.ack(again);
    assertThat(c.flush()).isEmpty();
    c.ack(again);
    List<SettleFailure> failures = c.flush();
    assertThat(failures).singleElement().satisfies(f -> {
      assertThat(f.error()).isInstanceOf(AlreadySettledException.class);
      assertThat(f.reason()).isEqualTo("ALREADY_SETTLED");
      assertThat(f.firstOffset()).isEqualTo(first.offset());
      assertThat(f.lastOffset()).isEqualTo(first.offset());
    });
    awaitAllSettled("g");
  }

  @Test
  void anExtendedLeaseOutlivesTheAckTimeout() throws Exception {
    data.createTopic("t", 1);
    ackGroup("g", "ack.timeout.ms", "400");
    data.produceValues("t", 0, 1, "slow-job");
    AckConsumer<String, String> c = consumer(config("g", "t").build());
    AckRecord<String, String> r = take(c, 1).get(0);
    c.extendLease(r, Duration.ofMinutes(1));
    assertThat(c.flush()).as("the extension applied").isEmpty();
    // Until well past the original deadline: without the extension the record would have come again.
    List<AckRecord<String, String>> again = new ArrayList<>();
    while (System.currentTimeMillis() < r.leaseDeadlineMs() + 1500) {
      again.addAll(c.poll(Duration.ofMillis(100)));
    }
    assertThat(again).as("redelivered despite the extension").isEmpty();
    c.ack(r);
    assertThat(c.flush()).isEmpty();
    assertThat(awaitAllSettled("g").partitions().get(0).redeliveries()).isZero();
  }

  @Test
  void aLateAckAfterTheLeaseRanOutFailsWithLeaseExpired() throws Exception {
    data.createTopic("t", 1);
    data.createTopic("quiet", 1);
    ackGroup("g", "ack.timeout.ms", "500");
    data.produceValues("t", 0, 1, "v");
    AckRecord<String, String> r;
    try (AckConsumer<String, String> a = AckConsumer.ofStrings(config("g", "t").clientId("worker-a").build())) {
      r = take(a, 1).get(0);
    } // polled and not settled: with a client id the lease outlives the stream, until it runs out
    while (System.currentTimeMillis() < r.leaseDeadlineMs() + 500) {
      Thread.sleep(50);
    }
    // The same member again, on a topic without records, so that nothing re-leases the record to it.
    AckConsumer<String, String> late = consumer(config("g", "quiet").clientId("worker-a").build());
    late.ack(r);
    assertThat(late.flush()).singleElement().satisfies(f -> {
      assertThat(f.error()).isInstanceOf(LeaseExpiredException.class);
      assertThat(f.topicPartition().topic()).isEqualTo("t");
    });
  }

  @Test
  void closeSendsTheLastAcksAndHandsBackRecordsNeverPolledEvenForAMemberWithAClientId() throws Exception {
    data.createTopic("t", 1);
    ackGroup("g", "ack.timeout.ms", "3600000"); // a lease that runs out is no way back within this test
    data.produceValues("t", 0, 5, "v");
    AckRecord<String, String> polled;
    try (AckConsumer<String, String> a = AckConsumer.ofStrings(config("g", "t").clientId("worker-a").maxPollRecords(1)
        .ackFlushInterval(Duration.ofSeconds(60)).build())) {
      polled = take(a, 1).get(0);
      for (int i = 0; i < 500 && a.stats().receivedRecords() < 5; i++) {
        Thread.sleep(20); // the other four arrive and wait in the consumer, never polled
      }
      assertThat(a.stats().receivedRecords()).isEqualTo(5);
      a.ack(polled); // waits for the timed flush, which close sends first
    }
    AckConsumer<String, String> b = consumer(config("g", "t").build());
    List<AckRecord<String, String>> rest = take(b, 4);
    assertThat(rest).extracting(AckRecord::offset).doesNotContain(polled.offset()).hasSize(4);
    assertThat(rest).allSatisfy(r -> assertThat(r.deliveryAttempt()).isEqualTo(2));
    rest.forEach(b::ack);
    awaitAllSettled("g");
  }

  /**
   * Holds, until released, the first message that the consumer's own thread (the timer that sends
   * buffered settles) sends on a Receive stream: a send slow on the wire.
   */
  static final class HeldSend extends OnReceiveSend {
    final CountDownLatch held = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    void sending() {
      if (Thread.currentThread().getName().startsWith("brook-ack-consumer-") && held.getCount() > 0) {
        held.countDown();
        try {
          release.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  /** Runs {@link #sending()} before each message the client sends on a Receive stream. */
  abstract static class OnReceiveSend implements ClientInterceptor {
    abstract void sending();

    @Override
    public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
      ClientCall<Q, A> call = next.newCall(method, options);
      if (!method.getFullMethodName().equals(AckServiceGrpc.getReceiveMethod().getFullMethodName())) {
        return call;
      }
      return new ForwardingClientCall.SimpleForwardingClientCall<>(call) {
        @Override
        public void sendMessage(Q message) {
          sending();
          super.sendMessage(message);
        }
      };
    }
  }

  /**
   * Another thread may have taken settles out of the queue and be about to send them when close
   * half-closes the stream: those settles must still reach the broker. Here the timer's send is slow
   * on the wire; meanwhile a worker fills a batch (its ack sends it) and close runs. Five rounds of
   * acking 6 records and closing, after which none of the 6 comes again. (Before the fix the worker
   * took its batch, close found nothing to send and half-closed the stream first, and the worker put
   * the batch back, never to be sent.)
   */
  @Test
  void acksTakenByAnotherSenderWhenCloseRunsAreNotLost() throws Exception {
    for (int round = 0; round < 5; round++) {
      String topic = "t" + round;
      String group = "g" + round;
      data.createTopic(topic, 1);
      ackGroup(group);
      data.produceValues(topic, 0, 20, "v");
      HeldSend slow = new HeldSend();
      ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", broker.port()).usePlaintext()
          .intercept(slow).build();
      ConcurrentLinkedQueue<SettleFailure> failures = new ConcurrentLinkedQueue<>();
      try {
        AckConsumer<String, String> c = AckConsumer.ofStrings(config(group, topic).channel(channel).ackMaxBatch(5)
            .ackFlushInterval(Duration.ofMillis(20)).settleFailureHandler(failures::add).build());
        List<AckRecord<String, String>> got = take(c, 20);
        c.ack(got.get(0)); // the timer sends it, slowly
        assertThat(slow.held.await(30, TimeUnit.SECONDS)).as("the timer's settle message is on its way").isTrue();
        Thread worker = new Thread(() -> got.subList(1, 6).forEach(c::ack), "worker"); // the 5th sends the batch
        worker.start();
        Thread.sleep(100);
        Thread closer = new Thread(c::close, "closer");
        closer.start();
        Thread.sleep(100);
        slow.release.countDown();
        worker.join(30_000);
        closer.join(30_000);
        assertThat(closer.isAlive()).as("close returned").isFalse();
      } finally {
        slow.release.countDown();
        channel.shutdownNow();
      }
      assertThat(failures).as("settle failures").isEmpty();
      AckConsumer<String, String> next = consumer(config(group, topic).build());
      List<AckRecord<String, String>> again = take(next, 14); // 6..19 were never acked: handed back at close
      again.addAll(next.poll(Duration.ofMillis(500)));
      assertThat(again).extracting(AckRecord::offset).as("round %d: delivered again", round)
          .containsExactlyInAnyOrderElementsOf(LongStream.range(6, 20).boxed().toList());
      next.close();
    }
  }

  /**
   * Close while the broker is away: close waits for a stream (here requestTimeout, 2 s), then tells
   * the handler exactly which settles were not sent; they were not applied, so they come again.
   */
  @Test
  void closeWhileTheBrokerIsAwayTellsTheHandlerWhichSettlesWereNotSent() throws Exception {
    data.createTopic("t", 2);
    ackGroup("g");
    data.produceValues("t", 0, 10, "a");
    data.produceValues("t", 1, 10, "b");
    List<SettleFailure> failures = new ArrayList<>();
    AckConsumer<String, String> c = AckConsumer.ofStrings(config("g", "t").ackFlushInterval(Duration.ofSeconds(60))
        .requestTimeout(Duration.ofSeconds(2)).settleFailureHandler(failures::add).build());
    List<AckRecord<String, String>> got = take(c, 20);
    broker.stop();
    for (int i = 0; i < 2000 && c.memberId() != null; i++) {
      Thread.sleep(10); // until the consumer noticed: the acks then wait for a stream
    }
    assertThat(c.memberId()).as("the consumer's stream is gone").isNull();
    got.stream().filter(r -> r.partition() == 0 || r.offset() >= 5).forEach(c::ack); // partition 1: 5..9
    c.close();
    assertThat(failures).hasSize(2).allSatisfy(f -> {
      assertThat(f.reason()).isEqualTo(SettleFailure.NOT_SENT);
      assertThat(f.error().getMessage()).contains("no stream to the broker within PT2S");
    });
    assertThat(failures).extracting(f -> f.topicPartition().partition() + ":" + f.firstOffset() + ".." + f.lastOffset())
        .containsExactlyInAnyOrder("0:0..9", "1:5..9");
    assertThat(c.stats().settleFailures()).isEqualTo(2);

    broker.restartOnSamePort();
    AckConsumer<String, String> next = consumer(config("g", "t").build());
    List<AckRecord<String, String>> again = take(next, 20);
    assertThat(again).as("nothing was acked: every record comes again").hasSize(20);
  }

  @Test
  void flowControlKeepsAtMostMaxOutstandingUnsettledRecordsInHand() throws Exception {
    data.createTopic("t", 1);
    ackGroup("g");
    data.produceValues("t", 0, 30, "v");
    AckConsumer<String, String> c = consumer(config("g", "t").maxOutstandingRecords(5).build());
    List<AckRecord<String, String>> held = new ArrayList<>(take(c, 5));
    for (int i = 0; i < 5; i++) {
      held.addAll(c.poll(Duration.ofMillis(100)));
    }
    assertThat(held).as("held without settling").hasSize(5);
    Set<Long> seen = new HashSet<>();
    for (int i = 0; i < 400 && seen.size() < 30; i++) {
      assertThat(held.size()).as("unsettled records in hand").isLessThanOrEqualTo(5);
      held.forEach(r -> seen.add(r.offset()));
      held.forEach(c::ack); // settling makes room: the broker sends more
      held.clear();
      held.addAll(c.poll(Duration.ofMillis(100)));
    }
    assertThat(seen).hasSize(30);
    awaitAllSettled("g");
  }

  /** Counts the messages the client sends on Receive streams: what goes over the wire. */
  static final class ReceiveMessageCounter extends OnReceiveSend {
    final AtomicInteger sent = new AtomicInteger();

    @Override
    void sending() {
      sent.incrementAndGet();
    }
  }

  @Test
  void acksAreBatchedManyToAStreamMessage() throws Exception {
    data.createTopic("t", 2);
    ackGroup("g");
    data.produceValues("t", 0, 100, "a");
    data.produceValues("t", 1, 100, "b");
    ReceiveMessageCounter counter = new ReceiveMessageCounter();
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", broker.port()).usePlaintext()
        .intercept(counter).build();
    try {
      // No timed flushes: acks leave only when 50 are waiting.
      AckConsumer<String, String> c = consumer(config("g", "t").channel(channel).ackMaxBatch(50)
          .ackFlushInterval(Duration.ofSeconds(60)).build());
      List<AckRecord<String, String>> got = take(c, 200);
      got.forEach(c::ack); // 200 calls, one record each
      awaitAllSettled("g");
      assertThat(counter.sent.get()).as("stream messages: the first (group, topics), then 200 acks in 4")
          .isEqualTo(1 + 4);
      assertThat(c.stats().settlesQueued()).isEqualTo(200);
      assertThat(c.stats().settleMessages()).isEqualTo(4);
    } finally {
      for (AutoCloseable a : closeLater) {
        a.close();
      }
      closeLater.clear();
      channel.shutdownNow();
    }
  }

  @Test
  void errorsThatEndTheConsumerAreThrownByPoll() throws Exception {
    AckConsumer<String, String> unknown = consumer(config("g", "missing").build());
    assertThatThrownBy(() -> {
      for (int i = 0; i < 100; i++) {
        unknown.poll(Duration.ofMillis(100));
      }
    }).isInstanceOf(UnknownTopicException.class);

    data.createTopic("t", 1);
    GroupServiceGrpc.newBlockingStub(broker.channel()).withDeadlineAfter(30, TimeUnit.SECONDS)
        .joinGroup(JoinGroupRequest.newBuilder().setGroup("offsets").addTopics("t").build());
    AckConsumer<String, String> wrongMode = consumer(config("offsets", "t").build());
    assertThatThrownBy(() -> {
      for (int i = 0; i < 100; i++) {
        wrongMode.poll(Duration.ofMillis(100));
      }
    }).isInstanceOf(InconsistentGroupModeException.class);
  }

  @Test
  void aSecondConsumerWithTheSameClientIdEndsTheFirstWithMemberReplaced() throws Exception {
    data.createTopic("t", 1);
    ackGroup("g");
    AckConsumer<String, String> older = consumer(config("g", "t").clientId("worker").build());
    awaitConnected("g", "worker", older);
    AckConsumer<String, String> newer = consumer(config("g", "t").clientId("worker").build());
    newer.poll(Duration.ofMillis(100));
    assertThatThrownBy(() -> {
      for (int i = 0; i < 100; i++) {
        older.poll(Duration.ofMillis(100));
      }
    }).isInstanceOf(MemberReplacedException.class).hasMessageContaining("'worker'");
    data.produceValues("t", 0, 1, "v");
    assertThat(take(newer, 1)).hasSize(1); // the member goes on in the newer consumer
  }

  /** Polls until the group shows the member with a stream open. */
  void awaitConnected(String group, String member, AckConsumer<String, String> c) {
    for (int i = 0; i < 100; i++) {
      c.poll(Duration.ofMillis(100));
      if (GroupServiceGrpc.newBlockingStub(broker.channel()).withDeadlineAfter(30, TimeUnit.SECONDS)
          .describeGroup(DescribeGroupRequest.newBuilder().setGroup(group).build()).getGroup().getMembersList()
          .stream().anyMatch(m -> m.getMemberId().equals(member) && m.getConnected())) {
        return;
      }
    }
    throw new AssertionError("member " + member + " of group " + group + " never connected");
  }

  @Test
  void afterKill9AndARestartOnTheSamePortTheConsumerGoesOnAndNoRecordIsLost() throws Exception {
    data.createTopic("t", 2);
    ackGroup("g");
    data.produceValues("t", 0, 150, "a");
    data.produceValues("t", 1, 150, "b");
    ConcurrentLinkedQueue<SettleFailure> failures = new ConcurrentLinkedQueue<>();
    AckConsumer<String, String> c = consumer(config("g", "t").maxOutstandingRecords(50)
        .reconnectBackoff(Duration.ofMillis(50), Duration.ofSeconds(1)).settleFailureHandler(failures::add).build());
    Map<String, Integer> deliveries = new HashMap<>();
    int redeliveries = 0;
    boolean restarted = false;
    for (int i = 0; i < 1200 && deliveries.size() < 400; i++) {
      for (AckRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
        if (deliveries.merge(r.value(), 1, Integer::sum) > 1) {
          redeliveries++;
          assertThat(r.deliveryAttempt()).as("a redelivery of %s", r.value()).isGreaterThan(1);
        }
        c.ack(r);
      }
      if (!restarted && deliveries.size() >= 100) {
        broker.kill9(); // with acks in flight and waiting
        broker.restartOnSamePort();
        restarted = true;
        data = new TestData(broker.channel());
        data.produceValues("t", 0, 50, "c"); // produced after the restart: 400 in all
        data.produceValues("t", 1, 50, "d");
      }
    }
    assertThat(restarted).isTrue();
    assertThat(deliveries).as("distinct records received").hasSize(400);
    GroupInfo g = awaitAllSettled("g"); // every record acked in the end
    assertThat(g.partitions()).extracting(GroupPartitionInfo::endOffset).containsOnly(200L);
    assertThat(c.stats().reconnects()).isPositive();
    assertThat(c.stats().redeliveredRecords()).isEqualTo(redeliveries);
    assertThat(failures).allSatisfy(f -> assertThat(f.reason()).isIn("NOT_LEASED", "LEASE_EXPIRED",
        "ALREADY_SETTLED"));
    System.out.printf("restart: %d distinct records, %d redeliveries, %d reconnects, %d settle failures%n",
        deliveries.size(), redeliveries, c.stats().reconnects(), failures.size());
  }
}
