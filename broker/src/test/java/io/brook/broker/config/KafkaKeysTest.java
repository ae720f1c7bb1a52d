package io.brook.broker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** kafka.listen and kafka.advertised: off when empty, never a wildcard to advertise, never open under auth. */
class KafkaKeysTest {
  private static BrokerConfig flags(Map<String, String> flags) {
    return BrokerConfig.resolve(null, Map.of(), flags);
  }

  @Test
  void theListenerDefaultsToLocalhost9092AndAnEmptyValueTurnsItOff() {
    BrokerConfig defaults = BrokerConfig.defaults();
    assertThat(defaults.get(BrokerKeys.KAFKA_LISTEN)).hasValueSatisfying(a -> {
      assertThat(a.getHostString()).isEqualTo("localhost");
      assertThat(a.getPort()).isEqualTo(9092);
    });
    assertThat(defaults.describe()).contains("  kafka.listen = localhost:9092  (default)\n")
        .contains("  kafka.advertised =   (default)\n");
    assertThat(flags(Map.of("kafka.listen", "")).get(BrokerKeys.KAFKA_LISTEN)).isEmpty();
  }

  @Test
  void aWildcardOrPortZeroToAdvertiseIsRefusedNamingTheKey() {
    for (String wildcard : new String[] {"0.0.0.0:9092", "[::]:9092", "[0:0:0:0:0:0:0:0]:9092"}) {
      assertThatThrownBy(() -> flags(Map.of("kafka.advertised", wildcard)))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("kafka.advertised (from flag)")
          .hasMessageContaining("a wildcard address is not one clients can connect to");
    }
    assertThatThrownBy(() -> flags(Map.of("kafka.advertised", "broker.example:0")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("port 0 is not one clients can connect to");
    Optional<InetSocketAddress> named = flags(Map.of("kafka.advertised", "brook.ns.svc.cluster.local:9092"))
        .get(BrokerKeys.KAFKA_ADVERTISED);
    assertThat(named).hasValueSatisfying(a -> assertThat(a.getHostString()).isEqualTo("brook.ns.svc.cluster.local"));
  }

  @Test
  void bindingEveryInterfaceNeedsAnAdvertisedAddress() {
    assertThatThrownBy(() -> CrossKeyRules.check(flags(Map.of("kafka.listen", "0.0.0.0:9092"))))
        .isInstanceOf(ConfigException.class)
        .hasMessage("kafka.listen=0.0.0.0:9092 (from flag) binds every interface, and kafka.advertised is not set: "
            + "Kafka clients would be told to connect to 0.0.0.0; set kafka.advertised to the host:port clients "
            + "reach this broker at");
    assertThatCode(() -> CrossKeyRules.check(flags(Map.of("kafka.listen", "0.0.0.0:9092", "kafka.advertised",
        "brook.example:9092")))).doesNotThrowAnyException();
  }

  @Test
  void anExplicitListenerWithAuthIsAcceptedNowThatItHasSasl() {
    assertThatCode(() -> CrossKeyRules.check(BrokerConfig.resolve(null, Map.of("BROOK_KAFKA_LISTEN",
        "127.0.0.1:9093"), Map.of("auth.enabled", "true")))).doesNotThrowAnyException();
    assertThatCode(() -> CrossKeyRules.check(flags(Map.of("auth.enabled", "true")))).doesNotThrowAnyException();
    assertThatCode(() -> CrossKeyRules.check(flags(Map.of("auth.enabled", "true", "kafka.listen", ""))))
        .doesNotThrowAnyException();
  }
}
