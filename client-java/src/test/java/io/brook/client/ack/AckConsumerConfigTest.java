package io.brook.client.ack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.client.errors.ConfigException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class AckConsumerConfigTest {
  @Test
  void defaultsNeedOnlyAGroupAndTopics() {
    AckConsumerConfig c = AckConsumerConfig.builder().group("workers").topics("jobs").build();
    assertThat(c.address()).isEqualTo("localhost:7070");
    assertThat(c.clientId()).isNull();
    assertThat(c.maxOutstandingRecords()).isEqualTo(1000);
    assertThat(c.maxOutstandingBytes()).isEqualTo(100L << 20);
    assertThat(c.maxPollRecords()).isEqualTo(500);
    assertThat(c.ackFlushInterval()).isEqualTo(Duration.ofMillis(100));
    assertThat(c.ackMaxBatch()).isEqualTo(1000);
    assertThat(c.reconnectBackoff()).isEqualTo(Duration.ofMillis(100));
    assertThat(c.reconnectBackoffMax()).isEqualTo(Duration.ofSeconds(10));
    assertThat(c.requestTimeout()).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void oneExceptionNamesEveryBadOption() {
    assertThatThrownBy(() -> AckConsumerConfig.builder().broker("nohost").group("bad/group").topics("ok", "..")
        .clientId(" ").maxOutstandingRecords(0).maxOutstandingBytes(-1).maxPollRecords(0)
        .ackFlushInterval(Duration.ofMillis(-5)).ackMaxBatch(0)
        .reconnectBackoff(Duration.ofSeconds(5), Duration.ofSeconds(1)).requestTimeout(Duration.ZERO).build())
        .isInstanceOfSatisfying(ConfigException.class, e -> {
          assertThat(e.reason()).isEqualTo("INVALID_CONFIG");
          assertThat(e.getMessage()).contains("broker must be host:port (got nohost)", "group must match",
              "topics must match [a-zA-Z0-9._-]{1,249} and not be . or .. (got ..)", "clientId must not be blank",
              "maxOutstandingRecords must be >= 1 (got 0)", "maxOutstandingBytes must be >= 1 (got -1)",
              "maxPollRecords must be >= 1", "ackFlushInterval (ms) must be in [0, 60000] (got -5)",
              "ackMaxBatch must be >= 1", "reconnectBackoffMax (ms) must be >= reconnectBackoff (got 1000)",
              "requestTimeout (ms) must be >= 1 (got 0)");
          assertThat(e.getMessage().split("; ")).hasSize(11);
        });
  }

  @Test
  void missingGroupTopicsAndDurationsAreReportedNotThrownAsNullPointers() {
    assertThatThrownBy(() -> AckConsumerConfig.builder().ackFlushInterval(null).requestTimeout(null)
        .reconnectBackoff(null, null).build())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("group is required")
        .hasMessageContaining("topics must name at least one topic")
        .hasMessageContaining("ackFlushInterval")
        .hasMessageContaining("requestTimeout")
        .hasMessageContaining("reconnectBackoff");
  }

  @Test
  void aSharedChannelMakesTheAddressIrrelevant() {
    io.grpc.ManagedChannel channel = io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder
        .forAddress("127.0.0.1", 1).usePlaintext().build();
    try {
      AckConsumerConfig c = AckConsumerConfig.builder().broker("not an address").channel(channel).group("g")
          .topics("t").build();
      assertThat(c.channel()).isSameAs(channel);
    } finally {
      channel.shutdownNow();
    }
  }
}
