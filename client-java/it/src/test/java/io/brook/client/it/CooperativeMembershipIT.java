package io.brook.client.it;

import static io.brook.client.it.TestTopics.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.it.BrokerProcess;
import io.brook.client.Serdes;
import io.brook.client.TopicPartition;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerConfig;
import io.brook.client.consumer.ConsumerRebalanceListener;
import io.brook.client.consumer.ConsumerRecord;
import io.brook.client.consumer.OffsetResetStrategy;
import io.brook.client.consumer.RebalanceProtocol;
import io.brook.client.errors.MemberReplacedException;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.GroupState;
import io.brook.protocol.v1.LeaveGroupRequest;
import io.brook.protocol.v1.MemberDescription;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cooperative member (D64) whose subscription, membership or instance changes while its rejoin is
 * under way, combined with static membership (D62) and pattern subscriptions (D63), against the real
 * broker. The test thread drives the member under test; a "holder" member of the same group that
 * reads another topic and stops polling keeps the rebalance open (the group waits for its rejoin up
 * to its max.poll.interval.ms), so the member's JoinGroup stays pending until the test lets it go.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class CooperativeMembershipIT {
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

  static ConsumerConfig.Builder config(String group, String name, RebalanceProtocol protocol) {
    return ConsumerConfig.builder().broker(broker.address()).groupId(group).clientId(name)
        .sessionTimeout(Duration.ofSeconds(10)).maxPollInterval(Duration.ofSeconds(120))
        .autoOffsetReset(OffsetResetStrategy.EARLIEST).fetchMaxWait(Duration.ofMillis(100)).enableAutoCommit(false)
        .rebalanceProtocol(protocol);
  }

  static BrookConsumer<String, String> consumer(ConsumerConfig.Builder config) {
    return new BrookConsumer<>(config.build(), Serdes.stringDeserializer(), Serdes.stringDeserializer());
  }

  static List<TopicPartition> partitions(String topic, int count) {
    List<TopicPartition> out = new ArrayList<>();
    for (int p = 0; p < count; p++) {
      out.add(new TopicPartition(topic, p));
    }
    return out;
  }

  static void produce(String topic, int partitions, int each) {
    for (int p = 0; p < partitions; p++) {
      TestTopics.produceValues(broker.channel(), topic, p, each, topic + "-" + p + "-");
    }
  }

  static GroupState state(String group) {
    return TestTopics.describeGroup(broker.channel(), group).getState();
  }

  static List<String> clientIds(String group) {
    return TestTopics.describeGroup(broker.channel(), group).getMembersList().stream()
        .map(MemberDescription::getClientId).toList();
  }

  /** The listener's calls, as "revoked [..]", "assigned [..]", "lost [..]"; optionally failing on revoke. */
  static final class Events implements ConsumerRebalanceListener {
    final List<String> log = Collections.synchronizedList(new ArrayList<>());
    volatile RuntimeException onRevoke;

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      log.add("revoked " + sorted(partitions));
      if (onRevoke != null) {
        throw onRevoke;
      }
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      log.add("assigned " + sorted(partitions));
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      log.add("lost " + sorted(partitions));
    }

    List<String> since(int mark) {
      synchronized (log) {
        return List.copyOf(log.subList(mark, log.size()));
      }
    }
  }

  static List<TopicPartition> sorted(Collection<TopicPartition> tps) {
    List<TopicPartition> l = new ArrayList<>(tps);
    Collections.sort(l);
    return l;
  }

  /** A consumer polled on a thread of its own until closed (then it closes the consumer). */
  static final class Poller implements AutoCloseable {
    final BrookConsumer<String, String> consumer;
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    volatile Set<TopicPartition> assignment = Set.of();
    volatile boolean stop;
    final Thread thread;

    Poller(BrookConsumer<String, String> consumer) {
      this.consumer = consumer;
      this.thread = new Thread(this::loop, "poller");
      thread.start();
    }

    private void loop() {
      try {
        while (!stop) {
          consumer.poll(Duration.ofMillis(100));
          assignment = consumer.assignment();
        }
      } catch (Throwable t) {
        failure.set(t);
      } finally {
        consumer.close();
      }
    }

    @Override
    public void close() throws InterruptedException {
      stop = true;
      thread.join(TimeUnit.SECONDS.toMillis(60));
    }
  }

  /**
   * A member of the group reading its own topic, polled on a thread of its own; while held it does
   * not poll, so a rebalance waits for it until {@link #release()}.
   */
  static final class Holder implements AutoCloseable {
    final BrookConsumer<String, String> consumer;
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    volatile boolean hold;
    volatile boolean idle;
    volatile boolean stop;
    final Thread thread;

    Holder(String group, String topic) throws InterruptedException {
      TestTopics.create(broker.channel(), topic, 1);
      consumer = consumer(config(group, "holder", RebalanceProtocol.EAGER));
      consumer.subscribe(List.of(topic));
      thread = new Thread(this::loop, "holder");
      thread.start();
    }

    private void loop() {
      try {
        while (!stop) {
          idle = hold;
          if (hold) {
            Thread.sleep(10);
            continue;
          }
          consumer.poll(Duration.ofMillis(100));
        }
      } catch (Throwable t) {
        failure.set(t);
      } finally {
        consumer.close();
      }
    }

    /** Stops polling once the group is stable; the member keeps polling meanwhile (a rebalance may need it). */
    void hold(BrookConsumer<String, String> member, String group) throws InterruptedException {
      pollUntil(member, "the group is stable", () -> state(group) == GroupState.GROUP_STATE_STABLE);
      hold = true;
      pollUntil(member, "the holder stopped polling", () -> idle);
    }

    void release() {
      hold = false;
    }

    @Override
    public void close() throws InterruptedException {
      stop = true;
      hold = false;
      thread.join(TimeUnit.SECONDS.toMillis(60));
      assertThat(failure.get()).as("the holder's poll loop").isNull();
    }
  }

  /** Polls until the condition holds (bounded), returning the records read meanwhile. */
  static List<ConsumerRecord<String, String>> pollUntil(BrookConsumer<String, String> c, String what,
      java.util.function.BooleanSupplier condition) throws InterruptedException {
    List<ConsumerRecord<String, String>> read = new ArrayList<>();
    await(what, 60, () -> {
      read.addAll(c.poll(Duration.ofMillis(100)).asList());
      return condition.getAsBoolean();
    });
    return read;
  }

  /**
   * Starts a rebalance (a newcomer on a topic of its own joins) and polls the member until its
   * cooperative rejoin is sent: the heartbeat hears of the rebalance at once, the next poll step
   * rejoins. The holder keeps the rebalance open.
   */
  static Poller startRebalanceAndRejoin(String group, BrookConsumer<String, String> member, String newcomerTopic)
      throws InterruptedException {
    TestTopics.create(broker.channel(), newcomerTopic, 1);
    BrookConsumer<String, String> newcomer = consumer(config(group, "newcomer", RebalanceProtocol.COOPERATIVE));
    newcomer.subscribe(List.of(newcomerTopic));
    Poller p = new Poller(newcomer);
    await("the group rebalances", 30, () -> state(group) == GroupState.GROUP_STATE_REBALANCING);
    for (int i = 0; i < 10; i++) { // a few poll steps: the rejoin starts at the first after the heartbeat's notice
      member.poll(Duration.ofMillis(100));
    }
    assertThat(state(group)).as("the holder keeps the rebalance open").isEqualTo(GroupState.GROUP_STATE_REBALANCING);
    return p;
  }

  // Finding 1: an answer that arrived for a membership the application has since left is not applied.
  @Test
  void unsubscribingDropsAnAnsweredRejoinOfTheMembershipThatEnded() throws Exception {
    String group = "unsub-answered";
    TestTopics.create(broker.channel(), "ua-old", 2);
    TestTopics.create(broker.channel(), "ua-new", 2);
    produce("ua-old", 2, 5);
    produce("ua-new", 2, 5);
    Events events = new Events();
    try (Holder holder = new Holder(group, "ua-side");
        BrookConsumer<String, String> a = consumer(config(group, "a", RebalanceProtocol.COOPERATIVE))) {
      a.subscribe(List.of("ua-old"), events);
      pollUntil(a, "a owns ua-old", () -> a.assignment().size() == 2);
      holder.hold(a, group);
      try (Poller newcomer = startRebalanceAndRejoin(group, a, "ua-newcomer")) {
        int generation = TestTopics.describeGroup(broker.channel(), group).getGeneration();
        holder.release();
        await("the rebalance completes, a's join answered (a does not poll)", 60, () ->
            state(group) == GroupState.GROUP_STATE_STABLE
                && TestTopics.describeGroup(broker.channel(), group).getGeneration() > generation);

        a.unsubscribe();
        int mark = events.log.size();
        a.subscribe(List.of("ua-new"), events);
        List<ConsumerRecord<String, String>> read = pollUntil(a, "a owns ua-new",
            () -> a.assignment().equals(Set.copyOf(partitions("ua-new", 2))));
        read.addAll(pollUntil(a, "a read ua-new", () -> true));
        assertThat(events.since(mark)).as("the listener after unsubscribe")
            .noneMatch(e -> e.contains("ua-old"));
        assertThat(read).as("records read after unsubscribe").extracting(ConsumerRecord::topic)
            .doesNotContain("ua-old");
        assertThat(newcomer.failure.get()).isNull();
      }
    }
  }

  // Finding 1, static and cooperative: the JoinGroup pending at unsubscribe is not answered into the new subscription.
  @Test
  void aStaticCooperativeMemberThatUnsubscribesDuringItsRejoinFollowsItsNewSubscription() throws Exception {
    String group = "unsub-static";
    TestTopics.create(broker.channel(), "us-old", 2);
    TestTopics.create(broker.channel(), "us-new", 2);
    Events events = new Events();
    try (Holder holder = new Holder(group, "us-side");
        BrookConsumer<String, String> a = consumer(config(group, "a", RebalanceProtocol.COOPERATIVE)
            .groupInstanceId("a-1"))) {
      a.subscribe(List.of("us-old"), events);
      pollUntil(a, "a owns us-old", () -> a.assignment().size() == 2);
      holder.hold(a, group);
      try (Poller newcomer = startRebalanceAndRejoin(group, a, "us-newcomer")) {
        a.unsubscribe(); // its JoinGroup is pending: the holder has not rejoined
        int mark = events.log.size();
        a.subscribe(List.of("us-new"), events);
        holder.release();
        pollUntil(a, "a owns us-new and nothing else", () -> a.assignment().equals(Set.copyOf(partitions("us-new", 2))));
        assertThat(a.subscription()).containsExactly("us-new");
        assertThat(events.since(mark)).as("the listener after unsubscribe").noneMatch(e -> e.contains("us-old"));
        assertThat(newcomer.failure.get()).isNull();
      }
    }
  }

  // Finding 2, with a pattern: a subscription changed while the rejoin is pending is joined with after its answer.
  @Test
  void aCooperativePatternMemberFollowsAPatternChangedDuringItsRejoin() throws Exception {
    String group = "repattern";
    TestTopics.create(broker.channel(), "po-1", 2);
    TestTopics.create(broker.channel(), "pn-1", 2);
    produce("pn-1", 2, 3);
    Events events = new Events();
    try (Holder holder = new Holder(group, "rp-side");
        BrookConsumer<String, String> a = consumer(config(group, "a", RebalanceProtocol.COOPERATIVE))) {
      a.subscribe(Pattern.compile("po-.*"), events);
      pollUntil(a, "a owns po-1", () -> a.assignment().size() == 2);
      holder.hold(a, group);
      try (Poller newcomer = startRebalanceAndRejoin(group, a, "rp-newcomer")) {
        a.subscribe(Pattern.compile("pn-.*"), events); // the rejoin under way was sent with po-.*
        holder.release();
        List<ConsumerRecord<String, String>> read = pollUntil(a, "a owns pn-1 and nothing else",
            () -> a.assignment().equals(Set.copyOf(partitions("pn-1", 2))));
        read.addAll(pollUntil(a, "a read pn-1", () -> true));
        assertThat(a.subscription()).containsExactly("pn-1");
        assertThat(events.log).contains("revoked " + partitions("po-1", 2));
        assertThat(newcomer.failure.get()).isNull();
      }
    }
  }

  // Finding 2, topics to pattern: the join under way carries the topics only, never the new pattern too.
  @Test
  void aCooperativeMemberSwitchingFromTopicsToAPatternDuringItsRejoinJoinsWithThePattern() throws Exception {
    String group = "topics-to-pattern";
    TestTopics.create(broker.channel(), "tp-a", 2);
    TestTopics.create(broker.channel(), "tp-b", 2);
    try (Holder holder = new Holder(group, "tp-side");
        BrookConsumer<String, String> a = consumer(config(group, "a", RebalanceProtocol.COOPERATIVE))) {
      a.subscribe(List.of("tp-a"));
      pollUntil(a, "a owns tp-a", () -> a.assignment().size() == 2);
      holder.hold(a, group);
      try (Poller newcomer = startRebalanceAndRejoin(group, a, "tp-newcomer")) {
        a.subscribe(Pattern.compile("tp-b"));
        holder.release();
        pollUntil(a, "a owns tp-b and nothing else", () -> a.assignment().equals(Set.copyOf(partitions("tp-b", 2))));
        assertThat(newcomer.failure.get()).isNull();
      }
    }
  }

  // Finding 3: a member that left (poll deadline) after its rejoin was answered loses its partitions.
  @Test
  void aCooperativeMemberThatMissedItsPollDeadlineAfterTheAnswerLosesItsPartitions() throws Exception {
    String group = "deadline";
    TestTopics.create(broker.channel(), "dl", 2);
    produce("dl", 2, 5);
    Events events = new Events();
    try (Holder holder = new Holder(group, "dl-side");
        BrookConsumer<String, String> a = consumer(config(group, "a", RebalanceProtocol.COOPERATIVE)
            .maxPollInterval(Duration.ofSeconds(4)))) {
      a.subscribe(List.of("dl"), events);
      pollUntil(a, "a owns dl", () -> a.assignment().size() == 2);
      pollUntil(a, "a read up", () -> a.poll(Duration.ofMillis(100)).isEmpty());
      holder.hold(a, group);
      try (Poller newcomer = startRebalanceAndRejoin(group, a, "dl-newcomer")) {
        holder.release();
        // a does not poll: once its join is answered the heartbeat thread leaves for it.
        await("a left the group", 60, () -> state(group) == GroupState.GROUP_STATE_STABLE
            && !clientIds(group).contains("a"));
        produce("dl", 2, 5);
        int mark = events.log.size();
        pollUntil(a, "a owns dl again", () -> a.assignment().size() == 2);
        assertThat(events.since(mark)).as("the partitions of the member that left are lost, not revoked")
            .first().isEqualTo("lost " + partitions("dl", 2));
        assertThat(events.since(mark)).noneMatch(e -> e.startsWith("revoked"));
        assertThat(newcomer.failure.get()).isNull();
      }
    }
  }

  // Finding 5: onPartitionsRevoked throwing does not keep onPartitionsAssigned from hearing of the added partitions.
  @Test
  void aFailingRevokeStillAnnouncesTheAddedPartitions() throws Exception {
    String group = "revoke-fails";
    TestTopics.create(broker.channel(), "rf-a", 2);
    TestTopics.create(broker.channel(), "rf-b", 2);
    Events events = new Events();
    try (BrookConsumer<String, String> a = consumer(config(group, "a", RebalanceProtocol.COOPERATIVE))) {
      a.subscribe(List.of("rf-a"), events);
      pollUntil(a, "a owns rf-a", () -> a.assignment().size() == 2);
      IllegalStateException boom = new IllegalStateException("the application's revoke failed");
      events.onRevoke = boom;
      a.subscribe(List.of("rf-b"), events);
      AtomicReference<Throwable> thrown = new AtomicReference<>();
      await("the revoke's failure thrown by poll", 60, () -> {
        try {
          a.poll(Duration.ofMillis(100));
        } catch (IllegalStateException e) {
          thrown.set(e);
        }
        return thrown.get() != null;
      });
      assertThat(thrown.get()).isSameAs(boom);
      assertThat(events.log).containsSubsequence("revoked " + partitions("rf-a", 2), "assigned " + partitions("rf-b", 2));
      events.onRevoke = null;
      pollUntil(a, "a owns rf-b", () -> a.assignment().equals(Set.copyOf(partitions("rf-b", 2))));
    }
  }

  // Finding 6: a fenced static member stays fenced through unsubscribe and subscribe.
  @Test
  void aFencedStaticCooperativeMemberStaysFencedAfterUnsubscribeAndSubscribe() throws Exception {
    String group = "fenced-resubscribe";
    TestTopics.create(broker.channel(), "fr", 2);
    try (BrookConsumer<String, String> older = consumer(config(group, "older", RebalanceProtocol.COOPERATIVE)
        .groupInstanceId("w-1"))) {
      older.subscribe(List.of("fr"));
      pollUntil(older, "older owns fr", () -> older.assignment().size() == 2);
      Events newerEvents = new Events();
      BrookConsumer<String, String> newerConsumer = consumer(config(group, "newer", RebalanceProtocol.COOPERATIVE)
          .groupInstanceId("w-1"));
      newerConsumer.subscribe(List.of("fr"), newerEvents);
      try (Poller newer = new Poller(newerConsumer)) {
        await("newer owns fr", 60, () -> newer.assignment.size() == 2);
        await("older fenced", 60, () -> {
          try {
            older.poll(Duration.ofMillis(100));
            return false;
          } catch (MemberReplacedException e) {
            return true;
          }
        });
        older.unsubscribe();
        older.subscribe(List.of("fr"));
        assertThatThrownBy(() -> older.poll(Duration.ofSeconds(1))).isInstanceOf(MemberReplacedException.class);
        assertThat(clientIds(group)).containsExactly("newer");
        assertThat(newerEvents.log).as("the newer member kept its partitions").containsExactly("assigned "
            + partitions("fr", 2));
        assertThat(newer.failure.get()).isNull();
      }
    }
  }

  // Finding 8: MEMBER_REPLACED answering a pending cooperative join: lost first, then the fatal error.
  @Test
  void aStaticCooperativeMemberFencedDuringItsRejoinLosesItsPartitionsThenPollThrows() throws Exception {
    String group = "fenced-rejoining";
    TestTopics.create(broker.channel(), "fj", 2);
    Events events = new Events();
    try (Holder holder = new Holder(group, "fj-side");
        BrookConsumer<String, String> a = consumer(config(group, "a", RebalanceProtocol.COOPERATIVE)
            .groupInstanceId("fj-1"))) {
      a.subscribe(List.of("fj"), events);
      pollUntil(a, "a owns fj", () -> a.assignment().size() == 2);
      holder.hold(a, group);
      try (Poller newcomer = startRebalanceAndRejoin(group, a, "fj-newcomer")) {
        BrookConsumer<String, String> b = consumer(config(group, "b", RebalanceProtocol.COOPERATIVE)
            .groupInstanceId("fj-1"));
        b.subscribe(List.of("fj"));
        try (Poller newer = new Poller(b)) {
          holder.release();
          int mark = events.log.size();
          AtomicReference<MemberReplacedException> thrown = new AtomicReference<>();
          await("a's poll throws MemberReplacedException", 60, () -> {
            try {
              a.poll(Duration.ofMillis(100));
            } catch (MemberReplacedException e) {
              thrown.set(e);
            }
            return thrown.get() != null;
          });
          assertThat(thrown.get()).hasMessageContaining("close this consumer");
          assertThat(events.since(mark)).containsExactly("lost " + partitions("fj", 2));
          await("b owns fj", 60, () -> newer.assignment.size() == 2);
          assertThat(newer.failure.get()).isNull();
        }
        assertThat(newcomer.failure.get()).isNull();
      }
    }
  }

  // Finding 7: a cooperative rejoin refused with UNKNOWN_MEMBER_ID leaves the member lost, not a member "".
  @Test
  void aCooperativeMemberRemovedDuringItsRejoinReportsItsPartitionsLostAtClose() throws Exception {
    String group = "removed-rejoining";
    TestTopics.create(broker.channel(), "rr", 2);
    produce("rr", 2, 5);
    Events events = new Events();
    try (Holder holder = new Holder(group, "rr-side");
        BrookConsumer<String, String> a = consumer(config(group, "a", RebalanceProtocol.COOPERATIVE)
            .enableAutoCommit(true))) {
      a.subscribe(List.of("rr"), events);
      pollUntil(a, "a owns rr", () -> a.assignment().size() == 2);
      holder.hold(a, group);
      try (Poller newcomer = startRebalanceAndRejoin(group, a, "rr-newcomer")) {
        String member = a.groupMetadata().memberId();
        // Removed while its JoinGroup is pending: the broker refuses that join with UNKNOWN_MEMBER_ID.
        GroupServiceGrpc.newBlockingStub(broker.channel()).withDeadlineAfter(10, TimeUnit.SECONDS)
            .leaveGroup(LeaveGroupRequest.newBuilder().setGroup(group).setMemberId(member).build());
        await("a's rejoin refused", 30, () -> a.groupMetadata().memberId().isEmpty());
        holder.release();
        int mark = events.log.size();
        a.close(); // nothing to commit as: the partitions are lost
        assertThat(events.since(mark)).containsExactly("lost " + partitions("rr", 2));
        assertThat(newcomer.failure.get()).isNull();
      }
    }
  }

  // Finding 9: a cooperative member without partitions is not told of an empty revocation at unsubscribe and close.
  @Test
  void aCooperativeMemberWithoutPartitionsHearsNoEmptyRevokeAtUnsubscribeOrClose() throws Exception {
    String group = "empty-revoke";
    TestTopics.create(broker.channel(), "er", 1);
    Events bEvents = new Events();
    BrookConsumer<String, String> a = consumer(config(group, "a", RebalanceProtocol.COOPERATIVE));
    a.subscribe(List.of("er"));
    try (Poller ap = new Poller(a)) {
      await("a owns er", 60, () -> ap.assignment.size() == 1);
      BrookConsumer<String, String> b = consumer(config(group, "b", RebalanceProtocol.COOPERATIVE));
      b.subscribe(List.of("er"), bEvents);
      pollUntil(b, "b joined without partitions", () -> bEvents.log.contains("assigned []"));
      b.unsubscribe();
      b.subscribe(List.of("er"), bEvents);
      pollUntil(b, "b joined again without partitions", () -> bEvents.log.size() >= 2);
      b.close();
      assertThat(bEvents.log).as("a kept the partition").containsExactly("assigned []", "assigned []");
      assertThat(ap.failure.get()).isNull();
    }
  }
}
