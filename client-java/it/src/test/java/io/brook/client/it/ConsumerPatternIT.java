package io.brook.client.it;

import static io.brook.client.it.TestTopics.await;
import static io.brook.client.it.TestTopics.create;
import static io.brook.client.it.TestTopics.produceValues;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.it.BrokerProcess;
import io.brook.client.Security;
import io.brook.client.Serdes;
import io.brook.client.TopicPartition;
import io.brook.client.admin.BrookAdmin;
import io.brook.client.admin.NewTopic;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerConfig;
import io.brook.client.consumer.ConsumerRecord;
import io.brook.client.consumer.OffsetResetStrategy;
import io.brook.client.errors.InvalidRequestException;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.JoinGroupRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * subscribe(Pattern) against the real broker: the broker resolves the pattern among the existing
 * topics the consumer may consume, at every rebalance, and its group's tick re-matches it, so that a
 * matching topic created or deleted while the members poll is assigned or taken away without
 * restarting them (issue 23, D63).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ConsumerPatternIT {
  static final String ROOT = "root-token-1234";
  static final String CAROL = "carol-token-5678";

  @TempDir Path dir;

  static ConsumerConfig.Builder config(BrokerProcess broker, String group) {
    return ConsumerConfig.builder().broker(broker.address()).groupId(group).sessionTimeout(Duration.ofSeconds(6))
        .fetchMaxWait(Duration.ofMillis(200)).autoOffsetReset(OffsetResetStrategy.EARLIEST);
  }

  static Set<TopicPartition> partitions(String topic, int count) {
    Set<TopicPartition> out = new HashSet<>();
    for (int p = 0; p < count; p++) {
      out.add(new TopicPartition(topic, p));
    }
    return out;
  }

  static Set<TopicPartition> union(Set<TopicPartition> a, Set<TopicPartition> b) {
    Set<TopicPartition> out = new HashSet<>(a);
    out.addAll(b);
    return out;
  }

  @Test
  void twoMembersSplitTheMatchingTopicsAndFollowTopicsCreatedAndDeleted() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"))) {
      for (String topic : List.of("a1", "a2", "b")) {
        create(broker.channel(), topic, 2);
        for (int p = 0; p < 2; p++) {
          produceValues(broker.channel(), topic, p, 3, topic + "-" + p + "-");
        }
      }
      Pattern pattern = Pattern.compile("a.*");
      try (Poller one = new Poller(config(broker, "pat").build(), pattern);
          Poller two = new Poller(config(broker, "pat").build(), pattern)) {
        Set<TopicPartition> a1a2 = union(partitions("a1", 2), partitions("a2", 2));
        await("a1 and a2's partitions split between both members", 60, () -> one.polling() && two.polling()
            && !one.assignment.isEmpty() && !two.assignment.isEmpty()
                && union(one.assignment, two.assignment).equals(a1a2)
                && one.assignment.size() + two.assignment.size() == 4);
        await("every record of a1 and a2 read", 60, () -> one.valuesOf("a1", "a2") + two.valuesOf("a1", "a2") == 12);
        assertThat(one.subscription).containsExactlyInAnyOrder("a1", "a2");

        create(broker.channel(), "a3", 2);
        produceValues(broker.channel(), "a3", 0, 2, "a3-0-");
        produceValues(broker.channel(), "a3", 1, 2, "a3-1-");
        await("a3's partitions assigned to the polling members", 60, () ->
            union(one.assignment, two.assignment).equals(union(a1a2, partitions("a3", 2))));
        await("a3's records read", 60, () -> one.valuesOf("a3") + two.valuesOf("a3") == 4);
        await("a3 in the subscription", 30, () -> one.subscription.contains("a3") && two.subscription.contains("a3"));

        try (BrookAdmin admin = BrookAdmin.create(broker.address())) {
          admin.deleteTopic("a2");
        }
        Set<TopicPartition> a1a3 = union(partitions("a1", 2), partitions("a3", 2));
        await("a2 rebalanced away", 60, () -> union(one.assignment, two.assignment).equals(a1a3)
            && one.assignment.size() + two.assignment.size() == 4);
        await("a2 gone from the subscription", 30, () -> one.subscription.equals(Set.of("a1", "a3")));

        for (Poller p : List.of(one, two)) {
          assertThat(p.failure).as("poll failures").isNull();
          assertThat(p.everAssigned).extracting(TopicPartition::topic).doesNotContain("b");
          assertThat(p.valuesOf("b")).as("records of b read").isZero();
        }
      }
    }
  }

  @Test
  void anInvalidPatternIsAClearError() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"))) {
      StatusRuntimeException refused = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class, () ->
          GroupServiceGrpc.newBlockingStub(broker.channel()).withDeadlineAfter(10, TimeUnit.SECONDS).joinGroup(
              JoinGroupRequest.newBuilder().setGroup("bad").setTopicPattern("a(").build()));
      assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(refused.getStatus().getDescription())
          .isEqualTo("topic_pattern 'a(' is not a valid (Java) regular expression: Unclosed group near index 2");

      try (BrookConsumer<String, String> c = new BrookConsumer<>(config(broker, "bad").build(),
          Serdes.stringDeserializer(), Serdes.stringDeserializer())) {
        c.subscribe(Pattern.compile("a" + "b".repeat(1000)));
        assertThatThrownBy(() -> c.poll(Duration.ofSeconds(5))).isInstanceOf(InvalidRequestException.class)
            .hasMessageContaining("topic_pattern is 1001 characters long: at most 1000");
        assertThatThrownBy(() -> c.subscribe(Pattern.compile("a.*", Pattern.CASE_INSENSITIVE)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("write its flags inline, e.g. (?i)");
      }
    }
  }

  @Test
  void withAuthAPatternMatchesOnlyTopicsTheCallerMayConsume() throws Exception {
    Path permissions = Files.writeString(dir.resolve("permissions"), """
        root * topic:*
        root * group:*
        carol consume group:pat-*
        carol consume topic:sec-a1
        carol produce topic:sec-a2
        """);
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"), "--set", "auth.enabled=true",
        "--set", "auth.tokens=root=" + ROOT + ",carol=" + CAROL, "--set", "auth.permissions.file=" + permissions);
        BrookAdmin admin = BrookAdmin.builder().broker(broker.address())
            .security(Security.builder().token(ROOT).build()).build()) {
      for (String topic : List.of("sec-a1", "sec-a2", "sec-b")) {
        admin.createTopic(NewTopic.of(topic).withPartitions(2));
      }
      Pattern pattern = Pattern.compile("sec-a.*");
      try (Poller carol = new Poller(config(broker, "pat-carol").security(Security.builder().token(CAROL).build())
          .build(), pattern)) {
        await("carol's member joined", 60, () -> carol.polling() && !carol.subscription.isEmpty());
        assertThat(carol.subscription).containsExactly("sec-a1");
        assertThat(carol.assignment).isEqualTo(partitions("sec-a1", 2));
        assertThat(carol.failure).isNull();
      }
      try (Poller root = new Poller(config(broker, "pat-root").security(Security.builder().token(ROOT).build())
          .build(), pattern)) {
        await("root's member joined", 60, () -> root.polling() && !root.subscription.isEmpty());
        assertThat(root.subscription).containsExactlyInAnyOrder("sec-a1", "sec-a2");
        assertThat(root.assignment).isEqualTo(union(partitions("sec-a1", 2), partitions("sec-a2", 2)));
      }
    }
  }

  /** A member polling on its own thread (a join waits for every member), showing what it holds. */
  static final class Poller implements AutoCloseable {
    /** topic/partition/offset of every record read (a record read again after a rebalance counts once). */
    final Set<String> read = ConcurrentHashMap.newKeySet();
    final Set<TopicPartition> everAssigned = ConcurrentHashMap.newKeySet();
    volatile Set<TopicPartition> assignment = Set.of();
    volatile Set<String> subscription = Set.of();
    volatile Throwable failure;
    private volatile boolean stop;
    private final Thread thread;

    Poller(ConsumerConfig config, Pattern pattern) {
      thread = new Thread(() -> {
        try (BrookConsumer<String, String> c = new BrookConsumer<>(config, Serdes.stringDeserializer(),
            Serdes.stringDeserializer())) {
          c.subscribe(pattern);
          while (!stop) {
            for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
              read.add(r.topic() + "/" + r.partition() + "/" + r.offset());
            }
            assignment = c.assignment();
            everAssigned.addAll(assignment);
            subscription = c.subscription();
          }
        } catch (Throwable t) {
          failure = t;
        }
      }, "poller");
      thread.start();
    }

    /** True, or fails the test with what made this member's poll loop stop. */
    boolean polling() {
      if (failure != null) {
        throw new AssertionError("the member stopped polling", failure);
      }
      return true;
    }

    long valuesOf(String... topics) {
      return read.stream().filter(r -> Stream.of(topics).anyMatch(t -> r.startsWith(t + "/"))).count();
    }

    @Override
    public void close() throws InterruptedException {
      stop = true;
      thread.join(TimeUnit.SECONDS.toMillis(30));
    }
  }
}
