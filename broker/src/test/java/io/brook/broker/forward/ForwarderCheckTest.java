package io.brook.broker.forward;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.config.ConfigException;
import io.brook.broker.config.ForwardRouteConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The start's check of each route's producer settings (D68): what would otherwise fail only when the route runs. */
class ForwarderCheckTest {
  @TempDir Path dir;

  static ForwardRouteConfig route(Map<String, String> kafka) {
    return new ForwardRouteConfig("r", "orders", "{topic}", "127.0.0.1:9", true, false, 30_000, kafka);
  }

  @Test
  void aRouteWithPlainSettingsAndAResolvedSecretPasses() throws Exception {
    Path secret = dir.resolve("secret.properties");
    Files.writeString(secret, "id=edge-7\n");
    assertThatCode(() -> Forwarder.check(List.of(route(Map.of("client.id", "${file:" + secret + ":id}",
        "compression.type", "zstd"))))).doesNotThrowAnyException();
  }

  @Test
  void settingsThatOnlyTheProducerChecksAreRefusedAtStart() {
    // linger (the forwarder's) + request.timeout.ms must fit in delivery.timeout.ms: KafkaProducer's rule
    assertThatThrownBy(() -> Forwarder.check(List.of(route(Map.of("delivery.timeout.ms", "20000")))))
        .isInstanceOf(ConfigException.class).hasMessageContaining("bad forward route r")
        .hasMessageContaining("delivery.timeout.ms");
    assertThatThrownBy(() -> Forwarder.check(List.of(route(Map.of("compression.type", "brotli")))))
        .isInstanceOf(ConfigException.class).hasMessageContaining("bad forward route r")
        .hasMessageContaining("compression.type");
    assertThatThrownBy(() -> Forwarder.check(List.of(route(Map.of("security.protocol", "SSL",
        "ssl.truststore.location", dir.resolve("absent.jks").toString())))))
        .isInstanceOf(ConfigException.class).hasMessageContaining("bad forward route r");
  }

  @Test
  void aSecretThatDoesNotResolveIsRefusedAtStartNotSentAsText() throws Exception {
    Path secret = dir.resolve("secret.properties");
    Files.writeString(secret, "other=x\n");
    assertThatThrownBy(() -> Forwarder.check(List.of(route(Map.of("client.id", "${file:" + secret + ":id}")))))
        .isInstanceOf(ConfigException.class).hasMessageContaining("client.id").hasMessageContaining("did not resolve");
  }
}
