package io.brook.client.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.client.errors.ConfigException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ConsumerConfigTest {
  @Test
  void defaultsAreKafkasWhereTheyApply() {
    ConsumerConfig c = ConsumerConfig.builder().groupId("g").build();
    assertThat(c.broker()).isEqualTo("localhost:7070");
    assertThat(c.sessionTimeoutMs()).isEqualTo(45_000);
    assertThat(c.maxPollIntervalMs()).isEqualTo(300_000);
    assertThat(c.autoOffsetReset()).isEqualTo(OffsetResetStrategy.LATEST);
    assertThat(c.enableAutoCommit()).isTrue();
    assertThat(c.autoCommitIntervalMs()).isEqualTo(5_000);
    assertThat(c.maxPollRecords()).isEqualTo(500);
    assertThat(c.fetchMaxWaitMs()).isEqualTo(500);
    assertThat(c.fetchMaxBytes()).isEqualTo(1 << 20);
    assertThat(c.requestTimeoutMs()).isEqualTo(30_000);
    assertThat(c.defaultApiTimeoutMs()).isEqualTo(60_000);
    assertThat(c.reconnectBackoffMs()).isEqualTo(50);
    assertThat(c.reconnectBackoffMaxMs()).isEqualTo(1_000);
  }

  @Test
  void autoCommitIsOffWithoutAGroupAndCannotBeForcedOn() {
    assertThat(ConsumerConfig.builder().build().enableAutoCommit()).isFalse();
    assertThatThrownBy(() -> ConsumerConfig.builder().enableAutoCommit(true).build())
        .isInstanceOf(ConfigException.class).hasMessageContaining("enable.auto.commit needs a group.id");
  }

  @Test
  void oneExceptionNamesEveryInvalidOption() {
    assertThatThrownBy(() -> ConsumerConfig.builder()
        .broker("nohost")
        .groupId("bad group!")
        .sessionTimeout(Duration.ZERO)
        .maxPollInterval(Duration.ofMillis(-1))
        .autoOffsetReset(null)
        .autoCommitInterval(Duration.ZERO)
        .maxPollRecords(0)
        .fetchMaxWait(Duration.ofSeconds(40))
        .fetchMaxBytes(0)
        .requestTimeout(Duration.ofSeconds(30))
        .defaultApiTimeout(Duration.ZERO)
        .reconnectBackoff(Duration.ofMillis(100))
        .reconnectBackoffMax(Duration.ofMillis(10))
        .build())
        .isInstanceOf(ConfigException.class)
        .satisfies(e -> assertThat(((ConfigException) e).reason()).isEqualTo("INVALID_CONFIG"))
        .hasMessageContainingAll("broker must be host:port (got nohost)",
            "group.id must match", "session.timeout.ms", "max.poll.interval.ms", "auto.offset.reset is required",
            "auto.commit.interval.ms", "max.poll.records", "fetch.max.wait.ms must be below request.timeout.ms",
            "fetch.max.bytes", "default.api.timeout.ms", "reconnect.backoff.max.ms must be >= reconnect.backoff.ms");
  }

  @Test
  void aSharedChannelNeedsNoAddress() {
    // The address is not looked at when a channel is given; a null channel means the address counts.
    assertThatThrownBy(() -> ConsumerConfig.builder().broker("").build())
        .hasMessageContaining("broker is required");
  }

  @Test
  void rebalancingIsEagerUnlessCooperativeIsChosen() {
    assertThat(ConsumerConfig.builder().groupId("g").build().rebalanceProtocol()).isEqualTo(RebalanceProtocol.EAGER);
    assertThat(ConsumerConfig.builder().groupId("g").rebalanceProtocol(RebalanceProtocol.COOPERATIVE).build()
        .rebalanceProtocol()).isEqualTo(RebalanceProtocol.COOPERATIVE);
    assertThatThrownBy(() -> ConsumerConfig.builder().rebalanceProtocol(null).build())
        .isInstanceOf(ConfigException.class).hasMessageContaining("rebalance.protocol is required");
  }

  @Test
  void aGroupInstanceIdFollowsTheGroupNameRuleAndNeedsAGroup() {
    assertThat(ConsumerConfig.builder().groupId("g").build().groupInstanceId()).as("default: dynamic").isNull();
    assertThat(ConsumerConfig.builder().groupId("g").groupInstanceId("host-1").build().groupInstanceId())
        .isEqualTo("host-1");
    assertThatThrownBy(() -> ConsumerConfig.builder().groupId("g").groupInstanceId("host 1").build())
        .isInstanceOf(ConfigException.class).hasMessageContaining("group.instance.id must match");
    assertThatThrownBy(() -> ConsumerConfig.builder().groupInstanceId("host-1").build())
        .isInstanceOf(ConfigException.class).hasMessageContaining("group.instance.id needs a group.id");
  }
}
