package io.brook.broker.groups;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.errors.BrokerException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GroupConfigTest {
  @Test
  void defaultsFollowTheGroupName() {
    GroupConfig c = GroupConfig.of("orders", Map.of());
    assertThat(c.deadLetterTopic()).isEqualTo("orders.dlq");
    assertThat(c.maxDeliveryAttempts()).isEqualTo(5);
    assertThat(c.ackTimeoutMs()).isEqualTo(30_000);
    assertThat(c.maxUnsettled()).isEqualTo(1000);
    assertThat(c.startAtEarliest()).isFalse();
    assertThat(c.effective()).containsKeys(GroupConfig.KEYS.toArray(String[]::new));
  }

  @Test
  void aShareHeartbeatIntervalMustBeBelowTheSessionTimeout() {
    assertThatThrownBy(() -> GroupConfig.of("g", Map.of("share.heartbeat.interval.ms", "60000")))
        .isInstanceOf(BrokerException.class).hasMessageContaining("must be below share.session.timeout.ms (45000)");
    assertThatThrownBy(() -> GroupConfig.of("g", Map.of("share.session.timeout.ms", "3000")))
        .hasMessageContaining("share.heartbeat.interval.ms=5000");
    GroupConfig ok = GroupConfig.of("g", Map.of("share.session.timeout.ms", "3000", "share.heartbeat.interval.ms", "500"));
    assertThat(ok.shareSessionTimeoutMs()).isEqualTo(3000);
    assertThatThrownBy(() -> ok.with(Map.of(), List.of("share.heartbeat.interval.ms")))
        .hasMessageContaining("must be below");
  }

  @Test
  void badValuesAndKeysAreRefusedNamingThem() {
    assertThatThrownBy(() -> GroupConfig.of("g", Map.of("max.delivery.attempts", "0")))
        .isInstanceOf(BrokerException.class).hasMessageContaining("max.delivery.attempts=0");
    assertThatThrownBy(() -> GroupConfig.of("g", Map.of("auto.offset.reset", "none")))
        .hasMessageContaining("use latest or earliest");
    assertThatThrownBy(() -> GroupConfig.of("g", Map.of("dead.letter.topic", "g")))
        .hasMessageContaining("must not be named like the group");
    assertThatThrownBy(() -> GroupConfig.of("g", Map.of("retention.ms", "1"))).hasMessageContaining("unknown");
    assertThat(GroupConfig.of("g", Map.of("max.delivery.attempts", "-1")).maxDeliveryAttempts()).isEqualTo(-1);
  }

  @Test
  void alterSetsAndRemoves() {
    GroupConfig c = GroupConfig.of("g", Map.of("ack.timeout.ms", "500"))
        .with(Map.of("max.unsettled.per.partition", "1"), List.of("ack.timeout.ms"));
    assertThat(c.ackTimeoutMs()).isEqualTo(30_000);
    assertThat(c.maxUnsettled()).isEqualTo(1);
  }
}
