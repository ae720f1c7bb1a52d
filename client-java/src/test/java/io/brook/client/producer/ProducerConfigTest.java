package io.brook.client.producer;

import java.time.Duration;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.client.errors.ConfigException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ProducerConfigTest {
  @Test
  void defaultsAreKafkas() {
    ProducerConfig c = ProducerConfig.builder().build();
    assertThat(c.broker).isEqualTo("localhost:7070");
    assertThat(c.batchSize).isEqualTo(16_384);
    assertThat(c.lingerMs).isEqualTo(5);
    assertThat(c.bufferMemory).isEqualTo(32L << 20);
    assertThat(c.maxInFlightPerPartition).isEqualTo(5);
    assertThat(c.idempotence).isTrue();
    assertThat(c.deliveryTimeoutMs).isEqualTo(120_000);
  }

  @Test
  void oneExceptionNamesEveryInvalidOption() {
    assertThatThrownBy(() -> ProducerConfig.builder().broker("nohost").batchSize(0).linger(Duration.ofMillis(-1))
        .maxInFlightPerPartition(6).deliveryTimeout(Duration.ofMillis(10)).durability(null).build())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("broker must be host:port (got nohost)")
        .hasMessageContaining("batchSize must be >= 1 (got 0)")
        .hasMessageContaining("linger must be in [0, 3600000] ms (got nothing or negative)")
        .hasMessageContaining("maxInFlightPerPartition must be in [1, 5] with idempotence")
        .hasMessageContaining("deliveryTimeout must be >= linger + requestTimeout")
        .hasMessageContaining("durability is required");
  }

  @Test
  void aMissingDurationIsNamed() {
    assertThatThrownBy(() -> ProducerConfig.builder().maxBlock(null).build())
        .hasMessageContaining("maxBlock must be in [0, 2147483647] ms (got nothing or negative)");
  }

  @Test
  void durationsStopAtTheLargestIntInMilliseconds() {
    assertThatThrownBy(() -> ProducerConfig.builder().maxBlock(Duration.ofDays(365)).build())
        .hasMessageContaining("maxBlock must be in [0, 2147483647] ms (got 31536000000 ms)");
  }

  @Test
  void moreInFlightIsAllowedWithoutIdempotence() {
    assertThat(ProducerConfig.builder().idempotence(false).maxInFlightPerPartition(20).build().maxInFlightPerPartition)
        .isEqualTo(20);
  }

  @Test
  void aSharedChannelNeedsNoAddress() {
    assertThatThrownBy(() -> ProducerConfig.builder().broker("").build()).hasMessageContaining("broker is required");
  }
}
