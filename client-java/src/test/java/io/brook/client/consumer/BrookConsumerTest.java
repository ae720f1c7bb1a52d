package io.brook.client.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.client.Serdes;
import io.brook.client.TopicPartition;
import io.brook.client.errors.BrokerUnavailableException;
import io.brook.client.errors.ClientClosedException;
import io.brook.client.errors.CommitFailedException;
import io.brook.client.errors.ConfigException;
import io.brook.client.errors.WakeupException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the consumer decides without a broker: usage errors, and an unreachable broker (nothing listens on port 1). */
class BrookConsumerTest {
  static BrookConsumer<String, String> consumer(ConsumerConfig.Builder b) {
    return new BrookConsumer<>(b.broker("127.0.0.1:1").reconnectBackoff(Duration.ofMillis(5))
        .reconnectBackoffMax(Duration.ofMillis(20)).build(), Serdes.stringDeserializer(), Serdes.stringDeserializer());
  }

  @Test
  void subscribeAndCommitNeedAGroup() {
    try (BrookConsumer<String, String> c = consumer(ConsumerConfig.builder())) {
      assertThatThrownBy(() -> c.subscribe(List.of("t"))).isInstanceOf(ConfigException.class)
          .hasMessageContaining("subscribe needs a group.id");
      c.assign(List.of(new TopicPartition("t", 0)));
      assertThatThrownBy(() -> c.commitSync(Map.of(new TopicPartition("t", 0), new OffsetAndMetadata(1))))
          .isInstanceOf(ConfigException.class).hasMessageContaining("commit needs a group.id");
    }
  }

  @Test
  void pollNeedsASubscriptionOrAnAssignmentAndTheTwoDoNotMix() {
    try (BrookConsumer<String, String> c = consumer(ConsumerConfig.builder().groupId("g"))) {
      assertThatThrownBy(() -> c.poll(Duration.ZERO)).isInstanceOf(IllegalStateException.class);
      c.subscribe(List.of("t"));
      assertThatThrownBy(() -> c.assign(List.of(new TopicPartition("t", 0))))
          .isInstanceOf(IllegalStateException.class);
      assertThatThrownBy(() -> c.seek(new TopicPartition("t", 0), 1)).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("no current assignment");
    }
  }

  @Test
  void pollReturnsNothingWhileTheBrokerIsUnreachableThenThrowsPastTheApiTimeout() {
    try (BrookConsumer<String, String> c = consumer(ConsumerConfig.builder().groupId("g")
        .defaultApiTimeout(Duration.ofMillis(300)))) {
      c.subscribe(List.of("t"));
      assertThat(c.poll(Duration.ofMillis(50)).isEmpty()).isTrue();
      BrokerUnavailableException thrown = null;
      for (int i = 0; i < 200 && thrown == null; i++) {
        try {
          assertThat(c.poll(Duration.ofMillis(50)).isEmpty()).isTrue();
        } catch (BrokerUnavailableException e) {
          thrown = e;
        }
      }
      assertThat(thrown).as("thrown once unreachable for default.api.timeout.ms").isNotNull();
      assertThat(thrown.getMessage()).contains("127.0.0.1:1", "default.api.timeout.ms");
    }
  }

  @Test
  void wakeupFromAnotherThreadEndsAPoll() throws Exception {
    try (BrookConsumer<String, String> c = consumer(ConsumerConfig.builder().groupId("g"))) {
      c.subscribe(List.of("t"));
      Thread waker = new Thread(() -> {
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          return;
        }
        c.wakeup();
      });
      waker.start();
      assertThatThrownBy(() -> c.poll(Duration.ofMinutes(10))).isInstanceOf(WakeupException.class);
      waker.join();
    }
  }

  @Test
  void anAsyncCommitOfANonMemberReachesItsCallbackAtTheNextPoll() {
    try (BrookConsumer<String, String> c = consumer(ConsumerConfig.builder().groupId("g"))) {
      c.subscribe(List.of("t"));
      List<Object> outcomes = new java.util.ArrayList<>();
      c.commitAsync(Map.of(new TopicPartition("t", 0), new OffsetAndMetadata(1)), (offsets, e) -> outcomes.add(e));
      assertThat(outcomes).as("not before the polling thread comes back").isEmpty();
      c.poll(Duration.ofMillis(10));
      assertThat(outcomes).singleElement().isInstanceOf(CommitFailedException.class)
          .extracting(e -> ((CommitFailedException) e).reason()).isEqualTo("NOT_A_MEMBER");
    }
  }

  @Test
  void aClosedConsumerRefusesCalls() {
    BrookConsumer<String, String> c = consumer(ConsumerConfig.builder().groupId("g"));
    c.close();
    c.close(); // twice is fine
    assertThatThrownBy(() -> c.subscribe(List.of("t"))).isInstanceOf(ClientClosedException.class);
  }
}
