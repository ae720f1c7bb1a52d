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
import io.brook.client.errors.MemberReplacedException;
import io.brook.protocol.v1.GroupDescription;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.JoinGroupRequest;
import io.brook.protocol.v1.MemberDescription;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Static membership (group.instance.id) of Brook's own consumer against the real broker: a restart
 * within the session takes the member's place and partitions without a rebalance, a second live
 * consumer with the same instance id fences the first, and a static member whose heartbeats stop
 * loses its partitions at its session timeout.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class StaticMembershipIT {
  static final int PARTITIONS = 4;

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

  static Set<String> produce(String topic, String tag, int perPartition) {
    Set<String> values = new HashSet<>();
    for (int p = 0; p < PARTITIONS; p++) {
      values.addAll(TestTopics.produceValues(broker.channel(), topic, p, perPartition, tag + "-" + p + "-"));
    }
    return values;
  }

  /** A member on its own thread, committing after each batch and when its partitions are revoked. */
  static final class Member implements ConsumerRebalanceListener {
    final String name;
    final BrookConsumer<String, String> consumer;
    final List<String> events = Collections.synchronizedList(new ArrayList<>());
    final List<ConsumerRecord<String, String>> records = Collections.synchronizedList(new ArrayList<>());
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    volatile List<TopicPartition> assignment = List.of();
    volatile String memberId = "";
    volatile boolean stop;
    final Thread thread;

    /** @param instanceId null: a dynamic member */
    Member(String name, String group, String topic, String instanceId, Duration session) {
      this.name = name;
      this.consumer = new BrookConsumer<>(ConsumerConfig.builder().broker(broker.address()).groupId(group)
          .groupInstanceId(instanceId).clientId(name).sessionTimeout(session)
          .autoOffsetReset(OffsetResetStrategy.EARLIEST).fetchMaxWait(Duration.ofMillis(200))
          .enableAutoCommit(false).build(), Serdes.stringDeserializer(), Serdes.stringDeserializer());
      consumer.subscribe(List.of(topic), this);
      this.thread = new Thread(this::loop, "member-" + name);
      thread.start();
    }

    private void loop() {
      try {
        while (!stop) {
          List<ConsumerRecord<String, String>> batch = consumer.poll(Duration.ofMillis(200)).asList();
          records.addAll(batch);
          if (!batch.isEmpty()) {
            consumer.commitSync();
          }
        }
        consumer.close();
      } catch (Throwable t) {
        failure.set(t);
      }
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      events.add("revoked " + sorted(partitions));
      consumer.commitSync();
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      events.add("assigned " + sorted(partitions));
      memberId = consumer.groupMetadata().memberId();
      assignment = sorted(partitions);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      events.add("lost " + sorted(partitions));
      assignment = List.of();
    }

    Set<String> values() {
      synchronized (records) {
        Set<String> v = new HashSet<>();
        records.forEach(r -> v.add(r.value()));
        return v;
      }
    }

    /** Stops the loop, which closes the consumer; fails when the loop failed. */
    void close() throws InterruptedException {
      stopLoop();
      assertThat(failure.get()).as("%s's poll loop failed", name).isNull();
    }

    void stopLoop() throws InterruptedException {
      stop = true;
      thread.join(TimeUnit.SECONDS.toMillis(30));
      assertThat(thread.isAlive()).as("%s stopped", name).isFalse();
    }
  }

  static List<TopicPartition> sorted(Collection<TopicPartition> tps) {
    List<TopicPartition> l = new ArrayList<>(tps);
    Collections.sort(l);
    return l;
  }

  static int total(Member... members) {
    int n = 0;
    for (Member m : members) {
      n += m.records.size();
    }
    return n;
  }

  @Test
  void aRestartedStaticMemberGetsItsPartitionsBackWithoutARebalance() throws Exception {
    TestTopics.create(broker.channel(), "restart", PARTITIONS);
    Set<String> expected = produce("restart", "first", 50);
    // A long session: the restart below must come within it, however slow this machine is.
    Duration session = Duration.ofSeconds(60);
    Member dynamic = new Member("dynamic", "restart-group", "restart", null, session);
    Member first = new Member("static-1", "restart-group", "restart", "worker-1", session);
    Member second = null;
    try {
      await("the two share the partitions", 60, () -> dynamic.assignment.size() == 2 && first.assignment.size() == 2);
      await("the first records read", 30, () -> total(dynamic, first) >= expected.size());
      GroupDescription before = TestTopics.describeGroup(broker.channel(), "restart-group");
      assertThat(before.getMembersList()).extracting(MemberDescription::getInstanceId)
          .containsExactlyInAnyOrder("", "worker-1");
      List<String> dynamicEvents = List.copyOf(dynamic.events);
      List<TopicPartition> staticPartitions = first.assignment;

      first.close(); // commits in onPartitionsRevoked; a static member does not leave
      GroupDescription away = TestTopics.describeGroup(broker.channel(), "restart-group");
      assertThat(away.getMembersCount()).as("the static member stays in the group").isEqualTo(2);
      expected.addAll(produce("restart", "second", 50));

      second = new Member("static-2", "restart-group", "restart", "worker-1", session);
      Member restarted = second;
      await("the restarted member has partitions", 30, () -> !restarted.assignment.isEmpty());
      assertThat(restarted.assignment).as("the same partitions").isEqualTo(staticPartitions);
      assertThat(restarted.memberId).isNotEqualTo(first.memberId);
      await("every record read", 30, () -> total(dynamic, first, restarted) >= expected.size());

      GroupDescription after = TestTopics.describeGroup(broker.channel(), "restart-group");
      assertThat(after.getGeneration()).as("no rebalance").isEqualTo(before.getGeneration());
      assertThat(after.getMembersList()).extracting(MemberDescription::getMemberId)
          .containsExactlyInAnyOrder(dynamic.memberId, restarted.memberId);
      assertThat(dynamic.events).as("the other member's listener heard nothing").isEqualTo(dynamicEvents);
    } finally {
      if (second != null) {
        second.close();
      }
      dynamic.close();
    }
    assertThat(total(dynamic, first, second)).as("every record once").isEqualTo(expected.size());
    Set<String> read = new HashSet<>(dynamic.values());
    read.addAll(first.values());
    read.addAll(second.values());
    assertThat(read).isEqualTo(expected);
  }

  @Test
  void aSecondLiveConsumerWithTheSameInstanceIdFencesTheFirst() throws Exception {
    TestTopics.create(broker.channel(), "fence", PARTITIONS);
    produce("fence", "first", 20);
    Member older = new Member("older", "fence-group", "fence", "worker-1", Duration.ofSeconds(30));
    Member newer = null;
    try {
      await("the older one owns every partition", 30, () -> older.assignment.size() == PARTITIONS);
      newer = new Member("newer", "fence-group", "fence", "worker-1", Duration.ofSeconds(30));
      Member n = newer;
      await("the newer one owns every partition", 30, () -> n.assignment.size() == PARTITIONS);
      await("the older one's loop failed", 30, () -> older.failure.get() != null);
      // Its poll or its commitSync, whichever met the fence first.
      assertThat(older.failure.get()).isInstanceOf(MemberReplacedException.class)
          .hasMessageContaining("worker-1");
      assertThatThrownBy(() -> older.consumer.poll(Duration.ofMillis(10))).as("fenced for good")
          .isInstanceOf(MemberReplacedException.class);
      assertThat(older.events).as("its partitions were lost, not revoked").last().asString().startsWith("lost ");
      older.consumer.close();

      Set<String> second = produce("fence", "second", 20);
      await("the newer one reads on", 30, () -> n.values().containsAll(second));
      GroupDescription g = TestTopics.describeGroup(broker.channel(), "fence-group");
      assertThat(g.getMembersList()).extracting(MemberDescription::getMemberId).containsExactly(n.memberId);
    } finally {
      if (newer != null) {
        newer.close();
      }
      older.stopLoop();
    }
  }

  @Test
  void aStaticMemberWhoseHeartbeatsStopLosesItsPartitionsAtItsSessionTimeout() throws Exception {
    TestTopics.create(broker.channel(), "expire", PARTITIONS);
    Member dynamic = new Member("dynamic", "expire-group", "expire", null, Duration.ofSeconds(30));
    Member gone = new Member("gone", "expire-group", "expire", "worker-1", Duration.ofSeconds(8));
    try {
      await("the two share the partitions", 60, () -> dynamic.assignment.size() == 2 && gone.assignment.size() == 2);
      List<TopicPartition> had = dynamic.assignment;
      List<TopicPartition> its = gone.assignment;
      gone.close(); // no LeaveGroup: its heartbeats just stop
      assertThat(TestTopics.describeGroup(broker.channel(), "expire-group").getMembersList())
          .as("it stays until its session ends").extracting(MemberDescription::getInstanceId).contains("worker-1");

      await("the other member gets every partition", 60, () -> dynamic.assignment.size() == PARTITIONS);
      assertThat(dynamic.assignment).containsAll(its);
      assertThat(dynamic.events).as("a rebalance once the static member's session ended")
          .containsSubsequence("revoked " + had, "assigned " + sorted(dynamic.assignment));
      GroupDescription g = TestTopics.describeGroup(broker.channel(), "expire-group");
      assertThat(g.getMembersList()).extracting(MemberDescription::getMemberId).containsExactly(dynamic.memberId);
    } finally {
      dynamic.close();
    }
  }

  @Test
  void anInstanceIdThatBreaksTheGroupNameRuleIsRefused() {
    StatusRuntimeException e = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
        () -> GroupServiceGrpc.newBlockingStub(broker.channel()).withDeadlineAfter(10, TimeUnit.SECONDS)
            .joinGroup(JoinGroupRequest.newBuilder().setGroup("bad-instance").addTopics("any")
                .setInstanceId("has space").build()));
    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(e.getStatus().getDescription()).contains("instance_id").contains("has space");
  }
}
