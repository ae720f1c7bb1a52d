package io.brook.broker.config;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The rules between keys: each refuses what would break the broker, naming both keys, and lets the rest pass. */
class CrossKeyRulesTest {
  private static BrokerConfig flags(Map<String, String> flags) {
    return BrokerConfig.resolve(null, Map.of(), flags);
  }

  private static void accepted(Map<String, String> flags) {
    assertThatCode(() -> CrossKeyRules.check(flags(flags))).as(flags.toString()).doesNotThrowAnyException();
  }

  @Test
  void theDefaultsAndTheDocumentedExampleBreakNoRule() {
    accepted(Map.of());
  }

  @Test
  void aMinimumSessionTimeoutAboveTheMaximumIsRefusedNamingBoth() {
    assertThatThrownBy(() -> CrossKeyRules.check(BrokerConfig.resolve(null,
        Map.of("BROOK_GROUP_MAX_SESSION_TIMEOUT_MS", "30000"), Map.of("group.min.session.timeout.ms", "60000"))))
        .isInstanceOf(ConfigException.class)
        .hasMessage("group.min.session.timeout.ms=60000 (from flag) is above group.max.session.timeout.ms=30000 "
            + "(from env BROOK_GROUP_MAX_SESSION_TIMEOUT_MS): every JoinGroup would be refused; lower the minimum "
            + "or raise the maximum");
    accepted(Map.of("group.min.session.timeout.ms", "30000", "group.max.session.timeout.ms", "30000"));
  }

  @Test
  void defaultPartitionsAboveMaxPartitionsIsRefusedNamingBoth() {
    assertThatThrownBy(() -> CrossKeyRules.check(flags(Map.of("default.partitions", "12", "max.partitions", "10"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("default.partitions=12 (from flag) is above max.partitions=10 (from flag): every "
            + "topic created without a partition count would be refused");
    accepted(Map.of("default.partitions", "10", "max.partitions", "10"));
  }

  @Test
  void aProduceThresholdThatCannotRiseAboveTheHeadroomIsRefusedNamingTheDiskKeys() {
    assertThatThrownBy(() -> CrossKeyRules.check(flags(Map.of("disk.free.min.bytes", "1000",
        "disk.headroom.bytes", "1000", "disk.free.per.writer.bytes", "0"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("disk.free.min.bytes=1000 (from flag) is not above disk.headroom.bytes=1000 (from "
            + "flag) while disk.free.per.writer.bytes=0 (from flag): produce would be refused only where commits")
        .hasMessageContaining("leaving consumers no room to drain a full disk");
    accepted(Map.of("disk.free.min.bytes", "1001", "disk.headroom.bytes", "1000", "disk.free.per.writer.bytes", "0"));
    accepted(Map.of("disk.free.min.bytes", "0", "disk.headroom.bytes", "1000", "disk.free.per.writer.bytes", "1"));
    // every limit 0: the guard is off, which is no contradiction
    accepted(Map.of("disk.free.min.bytes", "0", "disk.headroom.bytes", "0", "disk.free.per.writer.bytes", "0"));
  }

  @Test
  void gRpcAndHttpOnOneAddressAreRefusedNamingBoth() {
    assertThatThrownBy(() -> CrossKeyRules.check(flags(Map.of("grpc.listen", "127.0.0.1:7070",
        "http.listen", "127.0.0.1:7070"))))
        .isInstanceOf(ConfigException.class)
        .hasMessage("grpc.listen=127.0.0.1:7070 (from flag) and http.listen=127.0.0.1:7070 (from flag) are the same "
            + "address: the HTTP server could not bind it; give one of them another port (or 0)");
    assertThatThrownBy(() -> CrossKeyRules.check(flags(Map.of("grpc.listen", "0.0.0.0:9000",
        "http.listen", "localhost:9000"))))
        .as("a wildcard host takes the port on every address").hasMessageContaining("are the same address");
    accepted(Map.of("grpc.listen", "127.0.0.1:0", "http.listen", "127.0.0.1:0"));
    accepted(Map.of("grpc.listen", "127.0.0.1:7070", "http.listen", "127.0.0.1:7071"));
    accepted(Map.of("grpc.listen", "127.0.0.1:7070", "http.listen", "127.0.0.2:7070"));
  }

  @Test
  void everyBrokenRuleIsNamedInOneLine() {
    assertThatThrownBy(() -> CrossKeyRules.check(flags(Map.of("default.partitions", "12", "max.partitions", "10",
        "group.min.session.timeout.ms", "60000", "group.max.session.timeout.ms", "30000"))))
        .hasMessageContaining("group.min.session.timeout.ms=60000")
        .hasMessageContaining("; default.partitions=12")
        .satisfies(e -> org.assertj.core.api.Assertions.assertThat(e.getMessage()).doesNotContain("\n"));
  }
}
