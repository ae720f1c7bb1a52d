package io.brook.broker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Forward routes (D68) as the config file gives them: defaults, matching, and each refusal naming its key. */
class ForwardRouteConfigTest {
  @TempDir Path dir;

  private BrokerConfig resolve(String... lines) throws IOException {
    Path f = dir.resolve("brook.properties");
    Files.writeString(f, String.join("\n", lines) + "\n");
    return BrokerConfig.resolve(f, Map.of(), Map.of());
  }

  @Test
  void aRouteTakesItsDefaultsAndItsKafkaSettings() throws IOException {
    BrokerConfig c = resolve("forward.orders.source=orders", "forward.orders.bootstrap.servers=k:9092",
        "forward.orders.kafka.security.protocol=SASL_SSL", "grpc.listen=127.0.0.1:7000");

    ForwardRouteConfig r = c.forwardRoutes().get(0);
    assertThat(r).isEqualTo(new ForwardRouteConfig("orders", "orders", "{topic}", "k:9092", true, false, 30_000,
        Map.of("security.protocol", "SASL_SSL")));
    assertThat(r.targetOf("orders")).isEqualTo("orders");
    assertThat(r.matches("orders")).isTrue();
    assertThat(r.matches("orders2")).isFalse();
    assertThat(c.describe()).contains("  forward.orders = orders -> {topic} on k:9092, kafka settings security.protocol\n")
        .doesNotContain("SASL_SSL"); // values may be secrets
  }

  @Test
  void aPrefixRouteMatchesItsTopicsAndNamesEachTarget() throws IOException {
    List<ForwardRouteConfig> routes = resolve("forward.b.source=sensor.*", "forward.b.target=edge-{topic}",
        "forward.b.bootstrap.servers=k:9092", "forward.a.source=x", "forward.a.bootstrap.servers=k:9092",
        "forward.b.retention.waits=true", "forward.b.create.target=false", "forward.b.backoff.max.ms=5000")
        .forwardRoutes();

    assertThat(routes).extracting(ForwardRouteConfig::name).containsExactly("a", "b");
    ForwardRouteConfig b = routes.get(1);
    assertThat(b.matches("sensor.t1")).isTrue();
    assertThat(b.matches("sensors")).isFalse();
    assertThat(b.targetOf("sensor.t1")).isEqualTo("edge-sensor.t1");
    assertThat(b.retentionWaits()).isTrue();
    assertThat(b.createTarget()).isFalse();
    assertThat(b.backoffMaxMs()).isEqualTo(5000);
  }

  @Test
  void noRoutesWithoutForwardLines() throws IOException {
    assertThat(resolve("grpc.listen=127.0.0.1:7000").forwardRoutes()).isEmpty();
    assertThat(BrokerConfig.defaults().forwardRoutes()).isEmpty();
  }

  @Test
  void eachBadRouteIsRefusedNamingItsKey() {
    assertRefused("forward.orders.source=orders", "forward.orders.bootstrap.servers=k:9092", "forward.orders.colour=x")
        .contains("forward.orders.colour").contains("unknown route key 'colour'");
    assertRefused("forward.or.ders.source=orders").contains("forward.or.ders.source");
    assertRefused("forward.orders=x").contains("forward.<route>.<key>");
    assertRefused("forward.orders.bootstrap.servers=k:9092").contains("forward.orders.source").contains("missing");
    assertRefused("forward.orders.source=orders").contains("forward.orders.bootstrap.servers").contains("missing");
    assertRefused("forward.o.source=bad/name", "forward.o.bootstrap.servers=k").contains("forward.o.source");
    assertRefused("forward.o.source=a*b*", "forward.o.bootstrap.servers=k").contains("forward.o.source");
    assertRefused("forward.o.source=a.*", "forward.o.target=fixed", "forward.o.bootstrap.servers=k")
        .contains("forward.o.target").contains("{topic}");
    assertRefused("forward.o.source=a", "forward.o.target={topic}/x", "forward.o.bootstrap.servers=k")
        .contains("forward.o.target");
    assertRefused("forward.o.source=a", "forward.o.target={topik}", "forward.o.bootstrap.servers=k")
        .contains("forward.o.target");
    assertRefused("forward.o.source=a", "forward.o.bootstrap.servers=k", "forward.o.retention.waits=yes")
        .contains("forward.o.retention.waits").contains("'yes' is not true or false");
    assertRefused("forward.o.source=a", "forward.o.bootstrap.servers=k", "forward.o.backoff.max.ms=10")
        .contains("forward.o.backoff.max.ms");
    assertRefused("forward.o.source=a", "forward.o.bootstrap.servers=k", "forward.o.backoff.max.ms=soon")
        .contains("forward.o.backoff.max.ms");
    assertRefused("forward.o.source=a", "forward.o.bootstrap.servers=k", "forward.o.kafka.acks=1")
        .contains("forward.o.kafka.acks").contains("sets acks itself");
  }

  @Test
  void routesComeOnlyFromTheFile() {
    assertThatThrownBy(() -> BrokerConfig.resolve(null, Map.of(), Map.of("forward.o.source", "a")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("unknown key 'forward.o.source' on the command line");
  }

  private org.assertj.core.api.AbstractStringAssert<?> assertRefused(String... lines) {
    try {
      resolve(lines);
    } catch (ConfigException e) {
      return assertThat(e.getMessage()).startsWith("bad forward route key ");
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("accepted: " + String.join(", ", lines));
  }
}
